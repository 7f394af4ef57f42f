import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../../config/index.ts';
import { contentSecurityPolicy } from '../../security.ts';
import { stripeSources } from './stripe-checkout.tsx';

const stripeKeys = { STRIPE_SECRET_KEY: 'sk_live_abc', STRIPE_PUBLISHABLE_KEY: 'pk_live_abc', STRIPE_WEBHOOK_SECRET: 'whsec_abc' };

describe('the live checkout CSP and STRIPE_JS_URL', () => {
  test("Stripe.js from Stripe: exactly Stripe's documented origins, each in its directive", () => {
    const config = loadConfig(stripeKeys, []);
    assert.equal(config.stripe?.jsUrl, 'https://js.stripe.com/v3/');
    const policy = contentSecurityPolicy('n0nce', [], stripeSources(config.stripe?.jsUrl ?? ''));
    assert.match(policy, /script-src 'nonce-n0nce' https:\/\/js\.stripe\.com https:\/\/\*\.js\.stripe\.com;/);
    assert.match(policy, /frame-src https:\/\/js\.stripe\.com https:\/\/\*\.js\.stripe\.com https:\/\/hooks\.stripe\.com;/);
    assert.match(policy, /connect-src 'self' https:\/\/api\.stripe\.com;/);
    assert.match(policy, /style-src 'nonce-n0nce';/, 'no inline styles for anyone');
    assert.match(policy, /default-src 'none'/);
  });

  test('Stripe.js from elsewhere (a test stand-in): that origin only, no Stripe origin', () => {
    const config = loadConfig({ ...stripeKeys, STRIPE_JS_URL: 'http://127.0.0.1:4999/v3/' }, []);
    const policy = contentSecurityPolicy('n0nce', [], stripeSources(config.stripe?.jsUrl ?? ''));
    assert.match(policy, /script-src 'nonce-n0nce' http:\/\/127\.0\.0\.1:4999;/);
    assert.match(policy, /frame-src http:\/\/127\.0\.0\.1:4999;/);
    assert.match(policy, /connect-src 'self' http:\/\/127\.0\.0\.1:4999;/);
    assert.ok(!policy.includes('stripe.com'));
  });

  test('pages without a provider get no frame-src and connect only to themselves', () => {
    const policy = contentSecurityPolicy('n0nce');
    assert.ok(!policy.includes('frame-src'));
    assert.match(policy, /connect-src 'self';/);
  });

  test('STRIPE_JS_URL is validated at boot: https (http only on loopback), a URL, no credentials', () => {
    for (const [value, message] of [
      ['not a url', /valid URL/],
      ['http://cdn.example.com/stripe.js', /https/],
      ['ftp://js.stripe.com/v3/', /one of/],
      ['https://user:secret@js.example.com/v3/', /credentials/],
    ] as const) {
      assert.throws(
        () => loadConfig({ ...stripeKeys, STRIPE_JS_URL: value }, []),
        (error: unknown) => error instanceof ConfigError && error.variable === 'STRIPE_JS_URL' && message.test(error.message),
        value,
      );
    }
  });
});
