import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { bodySignature, buildSignedRequest, headerSignature, secretKey, type WebhookEventPayload } from './signing.ts';
import { verifyWebhook, WebhookVerificationError } from './verify.ts';

const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const event: WebhookEventPayload = {
  id: 'evt_01hx0000000000000000000000000000000000',
  type: 'PAYMENT_SUCCEEDED',
  createdAt: 1_700_000_000_000,
  livemode: false,
  data: { pageId: 'page_1', amount: 1250, currency: 'EUR', nested: { z: 1, a: '€' } },
};
const now = new Date(1_700_000_100_000);
const timestampSeconds = Math.floor(now.getTime() / 1000);

test('the body signature is HMAC-SHA256 of the RFC 8785 form (test vector)', () => {
  // Keys sorted, no whitespace, `signature` left out: written out by hand.
  const canonical =
    '{"createdAt":1700000000000,"data":{"amount":1250,"currency":"EUR","nested":{"a":"€","z":1},"pageId":"page_1"},"id":"evt_01hx0000000000000000000000000000000000","livemode":false,"type":"PAYMENT_SUCCEEDED"}';
  const expected = createHmac('sha256', Buffer.from('MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'base64')).update(canonical).digest('base64');
  assert.equal(bodySignature(event, secret), expected);
  assert.equal(secretKey(secret).length, 24);
});

test('the header signature is byte-identical to the standardwebhooks library', () => {
  const { body } = buildSignedRequest(event, { bodySecret: secret, headerSecrets: [secret], timestampSeconds });
  assert.equal(headerSignature(event.id, timestampSeconds, body, secret), new Webhook(secret).sign(event.id, now, body));
});

test('verifyWebhook accepts a genuine request and returns the event', () => {
  const { body, headers } = buildSignedRequest(event, { bodySecret: secret, headerSecrets: [secret], timestampSeconds });
  const verified = verifyWebhook(headers, body, secret, { now });
  assert.deepEqual({ ...verified, signature: undefined }, { ...event, signature: undefined });
  assert.equal(verified.signature, bodySignature(event, secret));
  // Header names in any case, and the Fetch API's Headers.
  const upper = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toUpperCase(), value]));
  assert.equal(verifyWebhook(upper, Buffer.from(body), secret, { now }).id, event.id);
  assert.equal(verifyWebhook(new Headers(headers), body, secret, { now }).id, event.id);
});

test('verifyWebhook names the check that failed', () => {
  const { body, headers } = buildSignedRequest(event, { bodySecret: secret, headerSecrets: [secret], timestampSeconds });
  const other = 'whsec_' + Buffer.alloc(24, 1).toString('base64');
  const cases: Array<[string, () => unknown, RegExp]> = [
    ['missing header', () => verifyWebhook({ ...headers, 'webhook-signature': undefined }, body, secret, { now }), /Missing/],
    ['old timestamp', () => verifyWebhook(headers, body, secret, { now: now.getTime() + 301_000 }), /more than 300 s old/],
    ['future timestamp', () => verifyWebhook(headers, body, secret, { now: now.getTime() - 301_000 }), /in the future/],
    ['custom tolerance', () => verifyWebhook(headers, body, secret, { now: now.getTime() + 31_000, toleranceSeconds: 30 }), /more than 30 s old/],
    ['non-numeric timestamp', () => verifyWebhook({ ...headers, 'webhook-timestamp': 'soon' }, body, secret, { now }), /not a number/],
    ['wrong secret', () => verifyWebhook(headers, body, other, { now }), /webhook-signature does not match/],
    ['tampered body', () => verifyWebhook(headers, body.replace('1250', '9250'), secret, { now }), /webhook-signature does not match/],
    ['no secret', () => verifyWebhook(headers, body, [], { now }), /No webhook secret/],
  ];
  for (const [name, run, message] of cases) {
    assert.throws(run, (error: unknown) => error instanceof WebhookVerificationError && message.test(error.message), name);
  }
});

test('verifyWebhook checks the body signature and the id, not only the header', () => {
  // A sender holding the secret re-signs the header over a body whose own signature is wrong.
  const forged = JSON.stringify({ ...event, signature: bodySignature(event, 'whsec_' + Buffer.alloc(24, 2).toString('base64')) });
  const forgedHeaders = { 'webhook-id': event.id, 'webhook-timestamp': String(timestampSeconds), 'webhook-signature': headerSignature(event.id, timestampSeconds, forged, secret) };
  assert.throws(() => verifyWebhook(forgedHeaders, forged, secret, { now }), /body signature does not match/);
  const otherId = JSON.stringify({ ...event, signature: bodySignature(event, secret) });
  const otherIdHeaders = { 'webhook-id': 'evt_other', 'webhook-timestamp': String(timestampSeconds), 'webhook-signature': headerSignature('evt_other', timestampSeconds, otherId, secret) };
  assert.throws(() => verifyWebhook(otherIdHeaders, otherId, secret, { now }), /differs from the webhook-id/);
});

test('during a rotation both secrets verify: header carries both, body the previous one', () => {
  const next = 'whsec_' + Buffer.alloc(24, 3).toString('base64');
  const { body, headers } = buildSignedRequest(event, { bodySecret: secret, headerSecrets: [next, secret], timestampSeconds });
  assert.equal(headers['webhook-signature']?.split(' ').length, 2);
  assert.equal(verifyWebhook(headers, body, secret, { now }).id, event.id);
  assert.equal(verifyWebhook(headers, body, [next, secret], { now }).id, event.id);
  assert.throws(() => verifyWebhook(headers, body, next, { now }), /body signature/);
});
