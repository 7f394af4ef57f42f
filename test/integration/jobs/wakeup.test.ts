import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Database } from '../../../src/db/client.ts';
import { createCoalescedWakeup } from '../../../src/jobs/queue.ts';
import { openTestDatabase } from '../../helpers/database.ts';
import { waitFor } from '../../helpers/jobs.ts';

describe('createCoalescedWakeup: one NOTIFY per window, never none after a request', () => {
  let database: Database;
  let received = 0;
  let unlisten: () => Promise<void>;

  before(async () => {
    database = await openTestDatabase();
    unlisten = await database.listen('paysail_jobs', () => {
      received += 1;
    });
  });
  after(async () => {
    await unlisten();
    await database.close();
  });

  test('a burst of requests sends the leading NOTIFY and one trailing NOTIFY, not one each', async () => {
    received = 0;
    const wakeup = createCoalescedWakeup(database, 'test.wakeup', 200);
    for (let index = 0; index < 50; index += 1) {
      wakeup.request();
    }
    await waitFor(async () => received >= 2, { what: 'the leading and the trailing NOTIFY' });
    // Nothing else was requested: no further NOTIFY arrives once the window has passed.
    await sleep(400);
    assert.equal(received, 2, 'leading + trailing, not 50');
  });

  test('a request after a quiet window is sent at once, and every request is followed by a NOTIFY', async () => {
    received = 0;
    const wakeup = createCoalescedWakeup(database, 'test.wakeup', 20);
    for (let round = 1; round <= 3; round += 1) {
      wakeup.request();
      await waitFor(async () => received >= round, { what: `NOTIFY for request ${round}` });
      await sleep(40);
    }
    assert.equal(received, 3);
  });
});
