import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { openPglite } from '../../../src/db/client.ts';
import { onEmbeddedRunOnly } from '../../helpers/database.ts';

const timers = () => process.getActiveResourcesInfo().filter((resource) => resource === 'Timeout').length;

/**
 * PGlite compiles its WebAssembly through a promise V8 settles, not libuv: with nothing alive in
 * Node's event loop, Node would run the rest of the open from its drain of V8's tasks, waiting for
 * every background job of V8 after each one (decision 0072). `openPglite` holds a timer for the
 * open, and lets it go once the open has settled, so it never keeps a process alive.
 */
describe('opening PGlite keeps the event loop alive', { skip: onEmbeddedRunOnly }, () => {
  test('a timer is held while the database opens, and none is left after', async () => {
    const before = timers();
    let settled = false;
    let most = before;
    const opening = openPglite({}).finally(() => {
      settled = true;
    });
    // Sampled between the open's own steps, until it settles.
    while (!settled) {
      most = Math.max(most, timers());
      await new Promise((resolve) => setImmediate(resolve));
    }
    const database = await opening;
    try {
      assert.equal(most, before + 1, 'one timer more than before while the open ran');
      assert.equal(timers(), before, 'the timer is gone once the database is open');
    } finally {
      await database.close();
    }
  });

  test('a failed open lets the timer go too', async () => {
    const before = timers();
    await assert.rejects(openPglite({ snapshot: new Blob([new Uint8Array([1, 2, 3])]) }));
    assert.equal(timers(), before);
  });
});
