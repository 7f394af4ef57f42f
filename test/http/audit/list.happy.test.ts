import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { auditList, auditListStartedAt as startedAt, openAuditListSuite } from '../../helpers/audit.ts';

describe('GET /admin/v1/audit_events: filters and paging', () => {
  let context: TestContext;
  let first: TestMerchant;
  let second: TestMerchant;

  before(async () => ({ context, first, second } = await openAuditListSuite()));
  after(async () => context.close());

  const list = auditList(() => context);

  test('newest first; by merchant, actor type, action and time', async () => {
    const all = await list('');
    assert.deepEqual(
      all.auditEvents.map((event) => [event.action, event.merchantId]),
      [
        ['adminMerchants_enableLive', second.id],
        ['customers_create', second.id],
        ['customers_create', first.id],
        ['customers_create', first.id],
        ['customers_create', first.id],
      ],
    );
    assert.equal(all.hasMore, false);
    assert.deepEqual((await list(`?merchantId=${first.id}`)).auditEvents.length, 3);
    assert.deepEqual((await list('?actorType=operator')).auditEvents.map((event) => [event.actorId, event.target]), [['operator', second.id]]);
    assert.deepEqual((await list(`?action=customers_create&merchantId=${second.id}`)).auditEvents.map((event) => event.actorType), ['api_key']);
    const window = await list(`?createdFrom=${startedAt + 60_000}&createdTo=${startedAt + 120_000}`);
    assert.deepEqual(
      window.auditEvents.map((event) => event.createdAt),
      [startedAt + 120_000, startedAt + 60_000],
    );
    assert.deepEqual((await list('?livemode=false')).auditEvents.length, 4, 'the operator action named no mode');
  });

  test('keyset paging: pages of two cover the list once; the cursor is bound to its filters; an id works as startingAfter', async () => {
    const all = (await list('')).auditEvents.map((event) => event.id);
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await list(`?limit=2${cursor ? `&startingAfter=${encodeURIComponent(cursor)}` : ''}`);
      seen.push(...page.auditEvents.map((event) => event.id));
      cursor = page.nextCursor;
      assert.equal(page.hasMore, cursor !== undefined);
    } while (cursor);
    assert.deepEqual(seen, all);
    const firstPage = await list('?limit=2');
    const elsewhere = await context.admin('GET', `/admin/v1/audit_events?limit=2&actorType=api_key&startingAfter=${encodeURIComponent(firstPage.nextCursor ?? '')}`);
    assert.equal(elsewhere.statusCode, 400);
    assert.equal(json(elsewhere).errorCode, 'WRONG_PARAMETER');
    assert.deepEqual((await list(`?startingAfter=${all[1]}`)).auditEvents.map((event) => event.id), all.slice(2));
  });
});
