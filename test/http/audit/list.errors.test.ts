import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { json, type TestContext } from '../../helpers/context.ts';
import { auditListStartedAt as startedAt, openAuditListSuite } from '../../helpers/audit.ts';

describe('GET /admin/v1/audit_events: bad input', () => {
  let context: TestContext;

  before(async () => ({ context } = await openAuditListSuite()));
  after(async () => context.close());

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
});
