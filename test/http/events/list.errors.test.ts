import { after, before, describe, test } from 'node:test';
import { type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { assertError } from '../../helpers/assertions.ts';
import { eventPages, openEventListSuite } from '../../helpers/events.ts';

describe('GET /v1/events: bad paging input', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let other: TestMerchant;

  before(async () => ({ context, merchant, other } = await openEventListSuite()));
  after(async () => context.close());

  const page = eventPages(() => ({ context, merchant }));

  test('bad paging input answers 400 WRONG_PARAMETER', async () => {
    const bad: Array<[string, string]> = [
      ['limit=0', 'limit must be at least 1'],
      ['limit=101', 'limit must be at most 100'],
      ['limit=ten', 'limit must be an integer'],
      ['type=NOPE', 'type must be one of'],
      ['startingAfter=garbage', 'startingAfter must be the nextCursor'],
      ['foo=1', 'foo is not a recognised field'],
    ];
    for (const [query, message] of bad) {
      assertError(await context.request({ method: 'GET', url: `/v1/events?${query}`, apiKey: merchant.apiKey }), 400, 'WRONG_PARAMETER', message);
    }
    // Another merchant's event id, and a cursor with one character changed.
    const foreign = (await page('limit=1', other.apiKey)).events[0]?.id ?? '';
    assertError(await context.request({ method: 'GET', url: `/v1/events?startingAfter=${foreign}`, apiKey: merchant.apiKey }), 400, 'WRONG_PARAMETER', 'startingAfter');
    const cursor = (await page('limit=1')).nextCursor ?? '';
    const tampered = `${cursor.slice(0, 3)}${cursor[3] === 'A' ? 'B' : 'A'}${cursor.slice(4)}`;
    assertError(await context.request({ method: 'GET', url: `/v1/events?startingAfter=${encodeURIComponent(tampered)}`, apiKey: merchant.apiKey }), 400, 'WRONG_PARAMETER', 'startingAfter');
    assertError(await context.request({ method: 'GET', url: '/v1/events?livemode=true', apiKey: other.apiKey }), 403, 'LIVE_MODE_NOT_ENABLED');
  });
});
