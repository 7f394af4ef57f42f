import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { TestContext, TestMerchant } from '../../helpers/context.ts';
import { assertError } from '../../helpers/assertions.ts';
import { createEndpoint, merchantCalls, openWebhookEndpointSuite } from '../../helpers/webhooks.ts';

describe('POST /v1/webhook_endpoints: invalid input and the per-mode limit', () => {
  let context: TestContext;
  let sandboxOnly: TestMerchant;

  before(async () => ({ context, sandboxOnly } = await openWebhookEndpointSuite()));
  after(async () => context.close());
  const { post } = merchantCalls(() => context);

  test('validation answers WRONG_PARAMETER naming the field', async () => {
    const cases: Array<[unknown, string]> = [
      [{}, 'url is required'],
      [{ url: 'not a url' }, 'url must be an absolute http or https URL'],
      [{ url: 'ftp://hooks.example.com/' }, 'url must use http or https'],
      [{ url: 'https://user:pw@hooks.example.com/' }, 'url must not contain a user name or password'],
      [{ url: 'https://hooks.example.com/#frag' }, 'url must not contain a #fragment'],
      [{ url: `https://hooks.example.com/${'a'.repeat(2100)}` }, 'url must be at most 2048 characters'],
      [{ url: 'https://hooks.example.com/', enabledEvents: [] }, 'enabledEvents must have at least 1 item'],
      [{ url: 'https://hooks.example.com/', enabledEvents: ['PAYMENT_EXPLODED'] }, 'enabledEvents.[0]'],
      [{ url: 'https://hooks.example.com/', enabledEvents: ['PAYMENT_EXPIRED', 'PAYMENT_EXPIRED'] }, 'enabledEvents must not contain duplicates'],
      [{ url: 'https://hooks.example.com/', enabledEvents: ['*', 'PAYMENT_EXPIRED'] }, 'enabledEvents must be ["*"] or a list of event types'],
      [{ url: 'https://hooks.example.com/', secret: 'whsec_mine' }, 'secret is not a recognised field'],
      [{ url: 'https://hooks.example.com/', description: 'd'.repeat(256) }, 'description must be at most 255 characters'],
    ];
    for (const [body, message] of cases) {
      const error = assertError(await post(sandboxOnly, '/v1/webhook_endpoints?livemode=false', body), 400, 'WRONG_PARAMETER');
      assert.ok(error.errorMessage.includes(message.replace('.[0]', '')) || error.errorMessage.startsWith(message), `${JSON.stringify(body).slice(0, 80)}: "${error.errorMessage}" should say "${message}"`);
    }
  });

  test('at most 16 endpoints per mode', async () => {
    const merchant = await context.createMerchant();
    for (let index = 0; index < 16; index += 1) {
      await createEndpoint(context, merchant, { url: `https://hooks.example.com/${index}` });
    }
    assertError(await post(merchant, '/v1/webhook_endpoints?livemode=false', { url: 'https://hooks.example.com/17' }), 409, 'INVALID_STATE', 'at most 16');
  });
});
