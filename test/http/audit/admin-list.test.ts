import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { adminApiKey, createTestContext, json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { uniqueReference } from '../../helpers/payout-pages.ts';

interface AuditEventJson {
  id: string;
  merchantId: string | null;
  livemode: boolean | null;
  actorType: string;
  actorId: string;
  action: string;
  target: string | null;
  address: string;
  outcome: string;
  createdAt: number;
}
type ListAnswer = { data: { auditEvents: AuditEventJson[]; hasMore: boolean; nextCursor?: string } };

describe('GET /admin/v1/audit_events: filters, paging, bad input', () => {
  let context: TestContext;
  let first: TestMerchant;
  let second: TestMerchant;
  const startedAt = 1_800_000_000_000;

  before(async () => {
    context = await createTestContext();
    context.clock.set(new Date(startedAt));
    first = await context.createMerchant();
    second = await context.createMerchant();
    // Three customers of the first merchant a minute apart, one of the second, then the operator enables live for the second.
    for (const merchant of [first, first, first, second]) {
      const created = await context.request({ method: 'POST', url: '/v1/customers?livemode=false', apiKey: merchant.apiKey, body: { referenceId: uniqueReference('audit'), signupAt: 1_700_000_000_000 } });
      assert.equal(created.statusCode, 200, created.body);
      context.clock.advance(60_000);
    }
    assert.equal((await context.admin('POST', `/admin/v1/merchants/${second.id}/live`)).statusCode, 200);
    await context.platform.services.audit.flush();
  });
  after(async () => context.close());

  async function list(query: string): Promise<ListAnswer['data']> {
    const response = await context.admin('GET', `/admin/v1/audit_events${query}`);
    assert.equal(response.statusCode, 200, response.body);
    return json<ListAnswer>(response).data;
  }

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

  test('bad input: 400 WRONG_PARAMETER naming the field', async () => {
    const cases: Array<[string, RegExp]> = [
      ['?limit=0', /limit/],
      ['?limit=101', /limit/],
      ['?actorType=robot', /actorType/],
      ['?merchantId=cus_123', /merchantId/],
      ['?action=drop%20table', /action/],
      ['?createdFrom=yesterday', /createdFrom/],
      ['?createdFrom=9000000000000000', /createdFrom/],
      [`?createdFrom=${startedAt}&createdTo=${startedAt - 1}`, /createdTo/],
      ['?startingAfter=not-a-cursor', /startingAfter/],
      ['?merchant=mer_1', /merchant/],
    ];
    for (const [query, field] of cases) {
      const response = await context.admin('GET', `/admin/v1/audit_events${query}`);
      assert.equal(response.statusCode, 400, query);
      const body = json<{ errorCode: string; errorMessage: string }>(response);
      assert.equal(body.errorCode, 'WRONG_PARAMETER', query);
      assert.match(body.errorMessage, field, query);
    }
  });

  test('only the operator: no bearer or an API key → 401', async () => {
    assert.equal((await context.app.inject({ method: 'GET', url: '/admin/v1/audit_events' })).statusCode, 401);
    assert.equal((await context.app.inject({ method: 'GET', url: '/admin/v1/audit_events', headers: { authorization: `Bearer ${adminApiKey}x` } })).statusCode, 401);
    assert.equal((await context.request({ method: 'GET', url: '/admin/v1/audit_events', apiKey: first.apiKey })).statusCode, 401);
  });
});
