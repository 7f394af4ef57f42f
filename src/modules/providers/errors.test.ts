import assert from 'node:assert/strict';
import { test } from 'node:test';
import { plainProviderError, providerCall, withPlainErrors } from './errors.ts';

/** What provider packages' errors carry: the request (body, Authorization) and the answer. */
function leakyError(): Error {
  return Object.assign(new Error('Invalid request: billing_details.name "Ada Lovelace", address "12 Acacia Avenue"'), {
    type: 'StripeInvalidRequestError',
    statusCode: 400,
    code: 'parameter_invalid',
    raw: { payment_method: { billing_details: { name: 'Ada Lovelace', email: 'ada@example.com' } } },
    headers: { authorization: 'Bearer sk_live_secret' },
    response: { status: 400, data: { first_name: 'Ada' } },
  });
}

test('a provider error becomes a plain Error naming provider, call, kind, status and code only', () => {
  const plain = plainProviderError('stripe', 'createPayment', leakyError());
  assert.equal(plain.message, 'stripe createPayment failed: StripeInvalidRequestError (HTTP 400) [parameter_invalid]');
  assert.equal(plain.name, 'StripeCallError');
  const everything = JSON.stringify({ ...plain, message: plain.message, stack: plain.stack });
  for (const secret of ['Ada', 'Lovelace', 'Acacia', 'ada@example.com', 'sk_live_secret']) {
    assert.ok(!everything.includes(secret), `${secret} does not survive`);
  }
  assert.equal(plainProviderError('increase', 'submit', { name: 'APIConnectionError' }).message, 'increase submit failed: APIConnectionError');
  assert.equal(plainProviderError('increase', 'submit', undefined).message, 'increase submit failed: Error');
});

test('providerCall and withPlainErrors pass results through and replace failures', async () => {
  assert.equal(await providerCall('stripe', 'read', async () => 42), 42);
  await assert.rejects(providerCall('stripe', 'read', async () => Promise.reject(leakyError())), (error: Error) => !error.message.includes('Ada') && /^stripe read failed/.test(error.message));
  const adapter = withPlainErrors('increase', {
    name: 'increase-rail',
    pollIntervalMs: 5,
    async ok(value: number) {
      return value + 1;
    },
    async fails(): Promise<never> {
      throw leakyError();
    },
  });
  assert.equal(adapter.name, 'increase-rail');
  assert.equal(adapter.pollIntervalMs, 5);
  assert.equal(await adapter.ok(1), 2);
  await assert.rejects(adapter.fails(), { name: 'IncreaseCallError', message: 'increase fails failed: StripeInvalidRequestError (HTTP 400) [parameter_invalid]' });
});
