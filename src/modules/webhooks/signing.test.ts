import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { bodySignature, buildSignedRequest, canonicalJson, type WebhookEventPayload } from './signing.ts';

const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

// buildSignedRequest splices the signature into the unsigned canonical text instead of serialising
// the event twice: the result must be exactly the canonical JSON of the signed event.
test('the signed body is the RFC 8785 form of the event with its signature, whatever the data', () => {
  const json = fc.jsonValue({ maxDepth: 3 }).filter((value) => value !== null && typeof value === 'object' && !Array.isArray(value)) as fc.Arbitrary<Record<string, unknown>>;
  fc.assert(
    fc.property(fc.string({ minLength: 1 }), fc.string(), fc.integer({ min: 0, max: 2 ** 45 }), fc.boolean(), json, (id, type, createdAt, livemode, data) => {
      const event: WebhookEventPayload = { id, type, createdAt, livemode, data };
      const { body } = buildSignedRequest(event, { bodySecret: secret, headerSecrets: [secret], timestampSeconds: 1_700_000_000 });
      assert.equal(body, canonicalJson({ ...event, signature: bodySignature(event, secret) }));
    }),
    { numRuns: 300 },
  );
});
