import assert from 'node:assert/strict';
import { AsyncLocalStorage, createHook } from 'node:async_hooks';
import { describe, test } from 'node:test';
import { openPglite } from '../../../src/db/client.ts';
import { onEmbeddedRunOnly } from '../../helpers/database.ts';

const opening = new AsyncLocalStorage<symbol>();

/**
 * The timers `open` creates (found through async_hooks, in the open's own async context: the timers
 * of other code in the same process, such as earlier files', do not count): the most alive at once
 * while it ran, and how many are left alive once it has settled and the destroy hooks have run.
 */
async function timersOf(open: () => Promise<{ close(): Promise<void> } | undefined>): Promise<{ mostWhileOpening: number; leftAfter: number }> {
  const alive = new Set<number>();
  const mine = Symbol('open');
  const hook = createHook({
    init(asyncId, type) {
      if (type === 'Timeout' && opening.getStore() === mine) {
        alive.add(asyncId);
      }
    },
    destroy(asyncId) {
      alive.delete(asyncId);
    },
  }).enable();
  try {
    let settled = false;
    let mostWhileOpening = 0;
    const result = opening.run(mine, open).finally(() => {
      settled = true;
    });
    // Sampled between the open's own steps, until it settles.
    while (!settled) {
      mostWhileOpening = Math.max(mostWhileOpening, alive.size);
      await new Promise((resolve) => setImmediate(resolve));
    }
    await (await result)?.close();
    // Destroy hooks run after the timer is cleared, from the event loop.
    await new Promise((resolve) => setImmediate(resolve));
    return { mostWhileOpening, leftAfter: alive.size };
  } finally {
    hook.disable();
  }
}

/**
 * PGlite compiles its WebAssembly through a promise V8 settles, not libuv: with nothing alive in
 * Node's event loop, Node would run the rest of the open from its drain of V8's tasks, waiting for
 * every background job of V8 after each one (decision 0072). `openPglite` holds a timer for the
 * open, and lets it go once the open has settled, so it never keeps a process alive.
 */
describe('opening PGlite keeps the event loop alive', { skip: onEmbeddedRunOnly }, () => {
  test('a timer is held while the database opens, and none is left after', async () => {
    const { mostWhileOpening, leftAfter } = await timersOf(() => openPglite({}));
    assert.equal(mostWhileOpening, 1, 'one timer alive while the open ran');
    assert.equal(leftAfter, 0, 'the timer is gone once the database is open');
  });

  test('a failed open lets the timer go too', async () => {
    const { mostWhileOpening, leftAfter } = await timersOf(async () => {
      await assert.rejects(openPglite({ snapshot: new Blob([new Uint8Array([1, 2, 3])]) }));
      return undefined;
    });
    assert.equal(mostWhileOpening, 1);
    assert.equal(leftAfter, 0);
  });
});
