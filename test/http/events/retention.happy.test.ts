import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { and, eq } from 'drizzle-orm';
import { events, jobs } from '../../../src/db/schema/index.ts';
import { eventRetentionMs, eventRetentionQueue, scheduleEventRetention } from '../../../src/modules/events/service.ts';
import { createTestContext, type TestContext } from '../../helpers/context.ts';
import { createEndpoint, deliveriesOf, emitEvent } from '../../helpers/webhooks.ts';

describe('events retention', () => {
  let context: TestContext;

  before(async () => (context = await createTestContext()));
  after(async () => context.close());

  test('events (and their deliveries) are kept 30 days by the hourly retention job', async () => {
    const keeper = await context.createMerchant();
    await createEndpoint(context, keeper, { url: 'http://127.0.0.1:9/unreachable' });
    const old = await emitEvent(context, keeper);
    await context.drainJobs();
    assert.equal((await deliveriesOf(context, keeper, `eventId=${old.id}`)).length, 1);
    context.clock.advance(eventRetentionMs - 2 * 3_600_000);
    const recent = await emitEvent(context, keeper);
    await context.database.transaction((tx) => scheduleEventRetention(tx, context.clock.now()));
    context.clock.advance(3 * 3_600_000);
    await context.drainJobs();
    const kept = await context.database.db.select({ id: events.id }).from(events).where(eq(events.merchantId, keeper.id));
    assert.deepEqual(
      kept.map((row) => row.id),
      [recent.id],
    );
    assert.equal((await deliveriesOf(context, keeper, `eventId=${old.id}`)).length, 0, 'deliveries go with their event');
    const next = await context.database.db.select({ id: jobs.id }).from(jobs).where(and(eq(jobs.queue, eventRetentionQueue), eq(jobs.status, 'pending')));
    assert.equal(next.length, 1, 'the job scheduled its next run');
  });
});
