import { after, before, describe, test } from 'node:test';
import { createTestContext, type TestContext } from '../../helpers/context.ts';
import { assertError } from '../../helpers/assertions.ts';

describe('GET /admin/v1/merchants/:merchantId/pii_keys (errors)', () => {
  let context: TestContext;

  before(async () => {
    context = await createTestContext();
  });
  after(async () => context.close());

  test('an unknown merchant → 404 NOT_FOUND', async () => {
    assertError(await context.admin('GET', `/admin/v1/merchants/mer_${'0'.repeat(36)}/pii_keys`), 404, 'NOT_FOUND', 'merchant');
    assertError(await context.admin('GET', '/admin/v1/merchants/nobody/pii_keys'), 404, 'NOT_FOUND');
  });
});
