import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import canonicalize from 'canonicalize';
import fc from 'fast-check';
import { CompactEncrypt } from 'jose';
import { Webhook } from 'standardwebhooks';
import { canonicalJson, PiiDecryptionError, pii, webhooks, WebhookVerificationError } from '@paysail/sdk';
// The server's own signer and verifier: the SDK must accept exactly what the server sends and agree with its verifier.
import { buildSignedRequest, generateWebhookSecret } from '../../../src/modules/webhooks/signing.ts';
import { verifyWebhook } from '../../../src/modules/webhooks/verify.ts';
import { encryptJweSync } from '../../../src/crypto/jwe.ts';

const now = Date.UTC(2026, 10, 22, 6, 0, 0);
const timestampSeconds = Math.floor(now / 1000);

function signedDelivery(secret: string, data: Record<string, unknown> = { pageId: 'page_1', clientReferenceId: 'order-1', fraudReportId: 'pay_1', fraudReason: 'stolen card' }) {
  const event = { id: `evt_${randomBytes(8).toString('hex')}`, type: 'FRAUD_REPORTED', createdAt: now, livemode: false, data };
  return { event, ...buildSignedRequest(event, { bodySecret: secret, headerSecrets: [secret], timestampSeconds }) };
}

test('canonicalJson is RFC 8785, identical to the canonicalize library on arbitrary JSON', () => {
  fc.assert(
    fc.property(fc.jsonValue(), (value) => {
      // JSON.parse(JSON.stringify()) turns -0 into 0 as any received body would.
      const received = JSON.parse(JSON.stringify(value)) as unknown;
      assert.equal(canonicalJson(received), canonicalize(received));
    }),
    { numRuns: 300 },
  );
  assert.equal(canonicalJson({ b: [1, 'é', null], a: { d: 1e21, c: 0.1 }, '\u20ac': true, '\r': false }), '{"\\r":false,"a":{"c":0.1,"d":1e+21},"b":[1,"é",null],"€":true}');
});

test('webhooks.verify accepts what the server sends, and the standardwebhooks library agrees', () => {
  const secret = generateWebhookSecret();
  const { event, body, headers } = signedDelivery(secret);
  const verified = webhooks.verify(headers, body, secret, { now });
  assert.deepEqual(verified, JSON.parse(body));
  assert.equal(verified.id, event.id);
  assert.equal(verified.type, 'FRAUD_REPORTED');
  // Node's IncomingHttpHeaders shape, a fetch Headers and a Uint8Array body are all accepted.
  assert.equal(webhooks.verify(new Headers(headers), new TextEncoder().encode(body), secret, { now }).id, event.id);

  // standardwebhooks checks against the real clock: a delivery signed now passes both.
  const current = buildSignedRequest(event, { bodySecret: secret, headerSecrets: [secret], timestampSeconds: Math.floor(Date.now() / 1000) });
  assert.deepEqual(new Webhook(secret).verify(current.body, current.headers), JSON.parse(current.body));
  assert.deepEqual(webhooks.verify(current.headers, current.body, secret), JSON.parse(current.body));
});

test('the SDK header signature is the one standardwebhooks computes', () => {
  const secret = generateWebhookSecret();
  const body = JSON.stringify({ id: 'evt_1', hello: 'world' });
  const date = new Date(now);
  assert.equal(webhooks.headerSignature('evt_1', timestampSeconds, body, secret), new Webhook(secret).sign('evt_1', date, body));
});

test('tampering, the wrong secret, stale timestamps and missing headers are refused, as the server verifier refuses them', () => {
  const secret = generateWebhookSecret();
  const other = generateWebhookSecret();
  const { body, headers } = signedDelivery(secret);
  const forged = JSON.stringify({ ...(JSON.parse(body) as Record<string, unknown>), livemode: true });
  const reSigned = { ...headers, 'webhook-signature': webhooks.headerSignature(headers['webhook-id'] ?? '', timestampSeconds, forged, secret) };
  const cases: Array<{ name: string; headers: Record<string, string>; body: string; secret: string | string[]; at: number; message: RegExp }> = [
    { name: 'body changed', headers, body: body.replace('stolen card', 'lost card'), secret, at: now, message: /webhook-signature does not match/ },
    { name: 'wrong secret', headers, body, secret: other, at: now, message: /webhook-signature does not match/ },
    { name: 'six minutes old', headers, body, secret, at: now + 360_000, message: /old/ },
    { name: 'from the future', headers, body, secret, at: now - 360_000, message: /future/ },
    { name: 'no signature header', headers: { ...headers, 'webhook-signature': '' }, body, secret, at: now, message: /Missing/ },
    { name: 'id swapped', headers: { ...headers, 'webhook-id': 'evt_other' }, body, secret, at: now, message: /webhook-signature does not match/ },
    { name: 'header re-signed over a forged body', headers: reSigned, body: forged, secret, at: now, message: /body signature does not match/ },
  ];
  for (const testCase of cases) {
    assert.throws(() => webhooks.verify(testCase.headers, testCase.body, testCase.secret, { now: testCase.at }), (error: unknown) => error instanceof WebhookVerificationError && testCase.message.test(error.message), testCase.name);
    assert.throws(() => verifyWebhook(testCase.headers, testCase.body, testCase.secret, { now: testCase.at }), Error, `server verifier: ${testCase.name}`);
  }
});

test('during a rotation both secrets verify, whichever signed', () => {
  const previous = generateWebhookSecret();
  const next = generateWebhookSecret();
  const event = { id: 'evt_rotation', type: 'PAYMENT_EXPIRED', createdAt: now, livemode: false, data: { pageId: 'page_1', clientReferenceId: 'c' } };
  const { body, headers } = buildSignedRequest(event, { bodySecret: next, headerSecrets: [next, previous], timestampSeconds });
  assert.equal(webhooks.verify(headers, body, [next, previous], { now }).id, 'evt_rotation');
  assert.equal(webhooks.verify(headers, body, [previous, next], { now }).id, 'evt_rotation');
  // Signed (header and body) by the previous secret only: still accepted with both, refused with the new one alone.
  const old = buildSignedRequest(event, { bodySecret: previous, headerSecrets: [previous], timestampSeconds });
  assert.equal(webhooks.verify(old.headers, old.body, [next, previous], { now }).id, 'evt_rotation');
  assert.throws(() => webhooks.verify(old.headers, old.body, next, { now }), WebhookVerificationError);
  assert.throws(() => webhooks.verify(headers, body, [], { now }), /No webhook secret/);
});

test('pii.decrypt reads what the server encrypts and what jose encrypts; keys as base64url, bytes or the key list', async () => {
  const key = randomBytes(32);
  const keyText = key.toString('base64url');
  const fromServer = encryptJweSync('Ada', key, 'pii_1');
  assert.equal(await pii.decrypt(fromServer, keyText), 'Ada');
  assert.equal(await pii.decrypt(fromServer, new Uint8Array(key)), 'Ada');
  const older = randomBytes(32);
  assert.equal(await pii.decrypt(fromServer, [{ id: 'pii_0', key: older.toString('base64url') }, { id: 'pii_1', key: keyText }]), 'Ada');
  await assert.rejects(pii.decrypt(fromServer, [{ id: 'pii_0', key: older }]), /No PII key with id pii_1/);

  await fc.assert(
    fc.asyncProperty(fc.string({ unit: 'grapheme', maxLength: 60 }), async (text) => {
      const jwe = await new CompactEncrypt(new TextEncoder().encode(text)).setProtectedHeader({ alg: 'dir', enc: 'A256GCM', kid: 'pii_1' }).encrypt(key);
      assert.equal(await pii.decrypt(jwe, key), text);
    }),
    { numRuns: 50 },
  );
});

test('pii.decrypt refuses a wrong key, tampering and other algorithms', async () => {
  const key = randomBytes(32);
  const jwe = encryptJweSync('1990-12-10', key, 'pii_1');
  const [header, encryptedKey, iv, ciphertext, tag] = jwe.split('.') as [string, string, string, string, string];
  const flipped = (part: string) => {
    const bytes = Buffer.from(part, 'base64url');
    bytes[0] = (bytes[0] ?? 0) ^ 1;
    return bytes.toString('base64url');
  };
  const rejected = async (value: string, withKey: Uint8Array | string, message: RegExp) =>
    assert.rejects(pii.decrypt(value, withKey), (error: unknown) => error instanceof PiiDecryptionError && message.test(error.message), value);
  await rejected(jwe, randomBytes(32), /does not decrypt/);
  await rejected([header, encryptedKey, iv, flipped(ciphertext), tag].join('.'), key, /does not decrypt/);
  await rejected([header, encryptedKey, iv, ciphertext, flipped(tag)].join('.'), key, /does not decrypt/);
  await rejected([header, encryptedKey, flipped(iv), ciphertext, tag].join('.'), key, /does not decrypt/);
  // A header changed to another kid breaks the AAD even though the key is right.
  const otherHeader = Buffer.from(JSON.stringify({ alg: 'dir', enc: 'A256GCM', kid: 'pii_2' })).toString('base64url');
  await rejected([otherHeader, encryptedKey, iv, ciphertext, tag].join('.'), key, /does not decrypt/);
  await rejected('not.a.jwe', key, /five dot-separated parts/);
  await rejected(jwe, randomBytes(16), /32 bytes/);
  const a128 = await new CompactEncrypt(new TextEncoder().encode('x')).setProtectedHeader({ alg: 'dir', enc: 'A128GCM' }).encrypt(randomBytes(16));
  await rejected(a128, key, /Unsupported JWE/);
});
