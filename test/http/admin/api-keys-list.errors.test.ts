import { after, before, describe, test } from 'node:test';
import { createTestContext, type TestContext } from '../../helpers/context.ts';
import { assertError } from '../../helpers/assertions.ts';

describe('GET /admin/v1/merchants/:merchantId/api_keys (errors)', () => {
  let context: TestContext;

  before(async () => {
    context = await createTestContext();
  });
  after(async () => context.close());

  test('an unknown merchant → 404 NOT_FOUND', async () => {
    assertError(await context.admin('GET', `/admin/v1/merchants/mer_${'0'.repeat(36)}/api_keys`), 404, 'NOT_FOUND', 'merchant');
  });

  test('an unknown sub-path → 404 envelope', async () => {
    const merchant = await context.createMerchant();
    const response = await context.admin('GET', `/admin/v1/merchants/${merchant.id}/api_keys/extra`);
    assertError(response, 404, 'NOT_FOUND');
  });
});
