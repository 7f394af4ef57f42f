import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { adminApiKey, basicAuth, createTestContext, json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { assertError } from '../../helpers/assertions.ts';

/**
 * Unauthenticated floods: failed authentications are limited per client address before any
 * database work, with the production defaults (5/s, burst 50); behind a trusted proxy the limit is
 * the client's, not the proxy's.
 */
describe('failed authentications are limited per client address (AUTH_FAILURE_BURST, TRUST_PROXY)', () => {
  let context: TestContext;
  let merchant: TestMerchant;

  before(async () => {
    context = await createTestContext({ env: { AUTH_FAILURES_PER_SECOND: '5', AUTH_FAILURE_BURST: '50', TRUST_PROXY: '127.0.0.1,10.9.0.0/16' } });
    merchant = await context.createMerchant();
  });
  after(async () => context.close());

  const badKey = `sk_${'0'.repeat(36)}_${'x'.repeat(43)}`;
  const call = (remoteAddress: string, authorization: string, headers: Record<string, string> = {}) =>
    context.app.inject({ method: 'GET', url: '/v1/events?livemode=false', remoteAddress, headers: { authorization, ...headers } });

  test('after the burst of failures one address gets 429 with Retry-After, even with a good key; other addresses are not affected', async () => {
    for (let attempt = 0; attempt < 50; attempt += 1) {
      assertError(await call('203.0.113.7', basicAuth(badKey)), 401, 'UNAUTHORIZED');
    }
    // The failure past the burst is answered 429 itself, and so is everything after it.
    const limited = await call('203.0.113.7', basicAuth(badKey));
    assertError(limited, 429, 'RATE_LIMITED', /Too many failed authentications from this address/);
    assert.match(String(limited.headers['retry-after']), /^[1-9]\d*$/);
    assertError(await call('203.0.113.7', basicAuth(merchant.apiKey)), 429, 'RATE_LIMITED');
    const other = await call('203.0.113.8', basicAuth(merchant.apiKey));
    assert.equal(other.statusCode, 200, other.body);
    assertError(await call('203.0.113.8', basicAuth(badKey)), 401, 'UNAUTHORIZED'); // another address still gets its own 401
    // The admin API shares the limit: wrong bearer tokens count, and a refused address is refused there too.
    const admin = await context.app.inject({ method: 'GET', url: '/admin/v1/merchants', remoteAddress: '203.0.113.7', headers: { authorization: `Bearer ${adminApiKey}` } });
    assertError(admin, 429, 'RATE_LIMITED');
  });

  test('a refused address costs no authentication work: no key lookup for any refused request', async () => {
    // A spy that calls through (the hook resolves services.merchants.authenticate at each request).
    const merchants = context.platform.services.merchants;
    const original = merchants.authenticate.bind(merchants);
    let lookups = 0;
    merchants.authenticate = async (rawKey: string) => {
      lookups += 1;
      return original(rawKey);
    };
    try {
      for (let attempt = 0; attempt < 50; attempt += 1) {
        await call('203.0.113.9', basicAuth(`sk_${String(attempt).padStart(36, '0')}_${'y'.repeat(43)}`));
      }
      assert.equal(lookups, 50);
      for (let attempt = 0; attempt < 20; attempt += 1) {
        assertError(await call('203.0.113.9', basicAuth(`sk_${'9'.repeat(36)}_${'z'.repeat(43)}`)), 429, 'RATE_LIMITED');
      }
      assert.equal(lookups, 51, 'only the failure that spent the budget was looked up; the refused ones were not');
    } finally {
      merchants.authenticate = original;
    }
  });

  test('behind a trusted proxy the limit applies to the forwarded client address; an untrusted peer cannot choose its address', async () => {
    for (let attempt = 0; attempt < 50; attempt += 1) {
      assertError(await call('10.9.0.1', basicAuth(badKey), { 'x-forwarded-for': '198.51.100.20' }), 401, 'UNAUTHORIZED');
    }
    assertError(await call('10.9.0.1', basicAuth(badKey), { 'x-forwarded-for': '198.51.100.20' }), 429, 'RATE_LIMITED');
    const sameProxyOtherClient = await call('10.9.0.1', basicAuth(merchant.apiKey), { 'x-forwarded-for': '198.51.100.21' });
    assert.equal(sameProxyOtherClient.statusCode, 200, 'one client behind the proxy does not lock out the others');
    // An untrusted peer's X-Forwarded-For is ignored: it is limited as itself whatever it claims.
    for (let attempt = 0; attempt < 51; attempt += 1) {
      await call('192.0.2.50', basicAuth(badKey), { 'x-forwarded-for': `198.51.100.${100 + (attempt % 100)}` });
    }
    assertError(await call('192.0.2.50', basicAuth(merchant.apiKey), { 'x-forwarded-for': '198.51.100.250' }), 429, 'RATE_LIMITED');
  });

  test('the bucket refills: after the wait the address authenticates again', async () => {
    const fresh = await createTestContext({ env: { AUTH_FAILURES_PER_SECOND: '1000', AUTH_FAILURE_BURST: '3' } });
    try {
      const key = (await fresh.createMerchant()).apiKey;
      const hit = (authorization: string) => fresh.app.inject({ method: 'GET', url: '/v1/events?livemode=false', remoteAddress: '203.0.113.77', headers: { authorization } });
      for (let attempt = 0; attempt < 3; attempt += 1) {
        assertError(await hit(basicAuth(badKey)), 401, 'UNAUTHORIZED');
      }
      const limited = await hit(basicAuth(badKey));
      assertError(limited, 429, 'RATE_LIMITED');
      assertError(await hit(basicAuth(key)), 429, 'RATE_LIMITED'); // refused until the wait is over, good key or not
      fresh.clock.advance(Number(limited.headers['retry-after']) * 1000);
      const again = await hit(basicAuth(key));
      assert.equal(again.statusCode, 200, again.body);
      assert.equal(json<{ status: string }>(again).status, 'SUCCEEDED');
    } finally {
      await fresh.close();
    }
  });
});
