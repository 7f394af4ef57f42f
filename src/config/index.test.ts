import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import { ConfigError, configDocumentation, loadConfig } from './index.ts';

function expectConfigError(env: Record<string, string>, variable: string, message?: RegExp): void {
  assert.throws(
    () => loadConfig(env, []),
    (error: unknown) => {
      assert.ok(error instanceof ConfigError, `a ConfigError, got ${String(error)}`);
      assert.equal(error.variable, variable);
      assert.ok(error.message.startsWith(`${variable}:`), `the message names ${variable}: ${error.message}`);
      if (message) {
        assert.match(error.message, message);
      }
      return true;
    },
  );
}

describe('loadConfig', () => {
  test('defaults (docs/API.md §16)', () => {
    const config = loadConfig({}, []);
    assert.equal(config.port, 4000);
    assert.equal(config.host, '127.0.0.1', 'the embedded default listens on this machine only');
    assert.equal(config.publicUrl, 'http://localhost:4000');
    assert.equal(config.dataDir, path.resolve('./data'));
    assert.equal(config.pgliteSharedBuffersMb, 32, 'decision 0067');
    assert.equal(config.databaseUrl, undefined);
    assert.equal(config.adminApiKey, undefined);
    assert.equal(config.redisUrl, undefined);
    assert.equal(config.smtpUrl, undefined);
    assert.equal(config.rateLimitPerSecond, 100);
    assert.equal(config.rateLimitBurst, 200);
    assert.equal(config.sandboxKycDelayMs, 2000);
    assert.equal(config.sandboxPayoutDelayMs, 2000);
    assert.equal(config.webhookAllowPrivateTargets, true, 'the embedded development default allows private targets');
    assert.equal(config.webhookTimeoutMs, 15_000, 'docs/API.md §12: success is a 2xx within 15 s');
    assert.equal(config.jobLeaseMs, 60_000);
    assert.equal(config.role, 'all');
    assert.ok(Object.isFrozen(config));
  });

  test('production refuses private webhook targets by default', () => {
    assert.equal(loadConfig({ NODE_ENV: 'production' }, []).webhookAllowPrivateTargets, false);
    assert.equal(loadConfig({ NODE_ENV: 'production', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' }, []).webhookAllowPrivateTargets, true);
  });

  test('private webhook targets are a default only on a server that listens on loopback (HOST=0.0.0.0 opts in to every interface and out of them)', () => {
    for (const host of ['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]']) {
      assert.equal(loadConfig({ HOST: host }, []).webhookAllowPrivateTargets, true, host);
    }
    for (const host of ['0.0.0.0', '::', '10.0.0.5', '192.168.1.10', 'paysail.internal']) {
      const config = loadConfig({ HOST: host }, []);
      assert.equal(config.host, host);
      assert.equal(config.webhookAllowPrivateTargets, false, host);
      assert.equal(loadConfig({ HOST: host, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' }, []).webhookAllowPrivateTargets, true, `${host}: the operator may still allow them`);
    }
  });

  test('values are parsed from their string form', () => {
    const config = loadConfig(
      {
        PORT: '8080',
        PUBLIC_URL: 'https://pay.example.com/',
        DATABASE_URL: 'postgres://u@db:5432/paysail',
        REDIS_URL: 'redis://cache:6379',
        RATE_LIMIT_PER_SECOND: '5',
        RATE_LIMIT_BURST: '5',
        WEBHOOK_ALLOW_PRIVATE_TARGETS: 'no',
        ROLE: 'worker',
      },
      [],
    );
    assert.equal(config.port, 8080);
    assert.equal(config.publicUrl, 'https://pay.example.com', 'trailing slash dropped');
    assert.equal(config.databaseUrl, 'postgres://u@db:5432/paysail');
    assert.equal(config.redisUrl, 'redis://cache:6379');
    assert.equal(config.rateLimitPerSecond, 5);
    assert.equal(config.rateLimitBurst, 5);
    assert.equal(config.webhookAllowPrivateTargets, false);
    assert.equal(config.role, 'worker');
    assert.equal(loadConfig({ ROLE: 'worker' }, ['node', 'main.ts', '--role=api']).role, 'api', 'the flag wins over ROLE');
  });

  const invalid: Array<[string, Record<string, string>, string, RegExp?]> = [
    ['PORT not a number', { PORT: 'abc' }, 'PORT', /integer/],
    ['PORT out of range', { PORT: '70000' }, 'PORT', /between/],
    ['PORT with a fraction', { PORT: '80.5' }, 'PORT'],
    ['RATE_LIMIT_BURST below RATE_LIMIT_PER_SECOND', { RATE_LIMIT_PER_SECOND: '50', RATE_LIMIT_BURST: '10' }, 'RATE_LIMIT_BURST', /RATE_LIMIT_PER_SECOND/],
    ['RATE_LIMIT_PER_SECOND zero', { RATE_LIMIT_PER_SECOND: '0' }, 'RATE_LIMIT_PER_SECOND'],
    ['DATABASE_URL with http', { DATABASE_URL: 'http://x' }, 'DATABASE_URL', /postgres/],
    ['DATABASE_URL not a URL', { DATABASE_URL: 'localhost:5432' }, 'DATABASE_URL'],
    ['REDIS_URL with http', { REDIS_URL: 'http://cache' }, 'REDIS_URL'],
    ['SMTP_URL with http', { SMTP_URL: 'http://mail' }, 'SMTP_URL'],
    ['PUBLIC_URL with ftp', { PUBLIC_URL: 'ftp://files' }, 'PUBLIC_URL'],
    ['WEBHOOK_ALLOW_PRIVATE_TARGETS=maybe', { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'maybe' }, 'WEBHOOK_ALLOW_PRIVATE_TARGETS', /true or false/],
    ['PGLITE_SHARED_BUFFERS_MB zero', { PGLITE_SHARED_BUFFERS_MB: '0' }, 'PGLITE_SHARED_BUFFERS_MB', /between/],
    ['PGLITE_SHARED_BUFFERS_MB with a unit', { PGLITE_SHARED_BUFFERS_MB: '32MB' }, 'PGLITE_SHARED_BUFFERS_MB', /integer/],
    ['PGLITE_SHARED_BUFFERS_MB above 1024', { PGLITE_SHARED_BUFFERS_MB: '2048' }, 'PGLITE_SHARED_BUFFERS_MB', /between/],
    ['SANDBOX_KYC_DELAY_MS negative', { SANDBOX_KYC_DELAY_MS: '-1' }, 'SANDBOX_KYC_DELAY_MS'],
    ['ADMIN_API_KEY too short', { ADMIN_API_KEY: 'short' }, 'ADMIN_API_KEY', /24/],
    ['NODE_ENV unknown', { NODE_ENV: 'staging' }, 'NODE_ENV'],
    ['LOG_LEVEL unknown', { LOG_LEVEL: 'verbose' }, 'LOG_LEVEL'],
    ['ROLE unknown', { ROLE: 'both' }, 'ROLE'],
    ['ENCRYPTION_KEYS missing in production with PostgreSQL', { NODE_ENV: 'production', DATABASE_URL: 'postgres://db/x' }, 'ENCRYPTION_KEYS'],
    ['INCREASE_API_KEY without the account', { INCREASE_API_KEY: 'key', INCREASE_WEBHOOK_SECRET: 'whsecret-1' }, 'INCREASE_ACCOUNT_ID'],
    ['INCREASE_ACCOUNT_ID malformed', { INCREASE_API_KEY: 'key', INCREASE_ACCOUNT_ID: 'acct 1', INCREASE_WEBHOOK_SECRET: 'whsecret-1' }, 'INCREASE_ACCOUNT_ID'],
    ['INCREASE_API_KEY without the webhook secret', { INCREASE_API_KEY: 'key', INCREASE_ACCOUNT_ID: 'account_abc123' }, 'INCREASE_WEBHOOK_SECRET'],
    ['INCREASE_ACCOUNT_ID without the API key', { INCREASE_ACCOUNT_ID: 'account_abc123' }, 'INCREASE_API_KEY'],
    ['INCREASE_BASE_URL not a URL', { INCREASE_API_KEY: 'key', INCREASE_ACCOUNT_ID: 'account_abc123', INCREASE_WEBHOOK_SECRET: 'whsecret-1', INCREASE_BASE_URL: 'nope' }, 'INCREASE_BASE_URL'],
    ['INCREASE_RTP_ENABLED not a boolean', { INCREASE_RTP_ENABLED: 'yes' }, 'INCREASE_RTP_ENABLED', /true or false/],
    ['INCREASE_RTP_ENABLED without the live keys', { INCREASE_RTP_ENABLED: 'true', INCREASE_RTP_ACCOUNT_NUMBER_ID: 'account_number_v18nkfqm6afpsrvy82b2' }, 'INCREASE_RTP_ENABLED', /INCREASE_API_KEY/],
    ['INCREASE_RTP_ENABLED without the account number', { INCREASE_API_KEY: 'key', INCREASE_ACCOUNT_ID: 'account_abc123', INCREASE_WEBHOOK_SECRET: 'whsecret-1', INCREASE_RTP_ENABLED: 'true' }, 'INCREASE_RTP_ACCOUNT_NUMBER_ID'],
    ['INCREASE_RTP_ACCOUNT_NUMBER_ID malformed', { INCREASE_API_KEY: 'key', INCREASE_ACCOUNT_ID: 'account_abc123', INCREASE_WEBHOOK_SECRET: 'whsecret-1', INCREASE_RTP_ENABLED: 'true', INCREASE_RTP_ACCOUNT_NUMBER_ID: 'account_abc123' }, 'INCREASE_RTP_ACCOUNT_NUMBER_ID'],
    ['INCREASE_RTP_ACCOUNT_NUMBER_ID without RTP enabled', { INCREASE_API_KEY: 'key', INCREASE_ACCOUNT_ID: 'account_abc123', INCREASE_WEBHOOK_SECRET: 'whsecret-1', INCREASE_RTP_ACCOUNT_NUMBER_ID: 'account_number_v18nkfqm6afpsrvy82b2' }, 'INCREASE_RTP_ACCOUNT_NUMBER_ID', /INCREASE_RTP_ENABLED/],
    ['INCREASE_SANDBOX_API_KEY without the others', { INCREASE_SANDBOX_API_KEY: 'key' }, 'INCREASE_SANDBOX_ACCOUNT_ID', /together/],
    ['INCREASE_SANDBOX_WEBHOOK_SECRET alone', { INCREASE_SANDBOX_WEBHOOK_SECRET: 'whsecret-1' }, 'INCREASE_SANDBOX_API_KEY', /together/],
    ['INCREASE_SANDBOX_ACCOUNT_ID malformed', { INCREASE_SANDBOX_API_KEY: 'key', INCREASE_SANDBOX_ACCOUNT_ID: 'acct 1', INCREASE_SANDBOX_WEBHOOK_SECRET: 'whsecret-1' }, 'INCREASE_SANDBOX_ACCOUNT_ID'],
    ['INCREASE_SANDBOX_WEBHOOK_SECRET too short', { INCREASE_SANDBOX_API_KEY: 'key', INCREASE_SANDBOX_ACCOUNT_ID: 'account_abc123', INCREASE_SANDBOX_WEBHOOK_SECRET: 'short' }, 'INCREASE_SANDBOX_WEBHOOK_SECRET'],
    ['INCREASE_SANDBOX_BASE_URL without the keys', { INCREASE_SANDBOX_BASE_URL: 'http://127.0.0.1:9' }, 'INCREASE_SANDBOX_API_KEY'],
    ['INCREASE_SANDBOX_BASE_URL not a URL', { INCREASE_SANDBOX_API_KEY: 'key', INCREASE_SANDBOX_ACCOUNT_ID: 'account_abc123', INCREASE_SANDBOX_WEBHOOK_SECRET: 'whsecret-1', INCREASE_SANDBOX_BASE_URL: 'nope' }, 'INCREASE_SANDBOX_BASE_URL'],
    ['CIRCLE_API_KEY malformed', { ...{ CIRCLE_API_KEY: 'TEST_API_KEY:abc:def', CIRCLE_ENTITY_SECRET: 'abababababababababababababababababababababababababababababababab', CIRCLE_WALLET_ID: '0b7a3e1c-52a4-4f0b-9c67-1d0e3b8f5a90' }, CIRCLE_API_KEY: 'sk_circle' }, 'CIRCLE_API_KEY'],
    ['CIRCLE_API_KEY without the entity secret', { ...{ CIRCLE_API_KEY: 'TEST_API_KEY:abc:def', CIRCLE_ENTITY_SECRET: 'abababababababababababababababababababababababababababababababab', CIRCLE_WALLET_ID: '0b7a3e1c-52a4-4f0b-9c67-1d0e3b8f5a90' }, CIRCLE_ENTITY_SECRET: '' }, 'CIRCLE_ENTITY_SECRET'],
    ['CIRCLE_WALLET_ID not UUIDs', { ...{ CIRCLE_API_KEY: 'TEST_API_KEY:abc:def', CIRCLE_ENTITY_SECRET: 'abababababababababababababababababababababababababababababababab', CIRCLE_WALLET_ID: '0b7a3e1c-52a4-4f0b-9c67-1d0e3b8f5a90' }, CIRCLE_WALLET_ID: 'wallet-1' }, 'CIRCLE_WALLET_ID'],
    ['CIRCLE_FEE_LEVEL unknown', { ...{ CIRCLE_API_KEY: 'TEST_API_KEY:abc:def', CIRCLE_ENTITY_SECRET: 'abababababababababababababababababababababababababababababababab', CIRCLE_WALLET_ID: '0b7a3e1c-52a4-4f0b-9c67-1d0e3b8f5a90' }, CIRCLE_FEE_LEVEL: 'FAST' }, 'CIRCLE_FEE_LEVEL'],
    ['CIRCLE_WALLET_ID without the API key', { CIRCLE_WALLET_ID: '0b7a3e1c-52a4-4f0b-9c67-1d0e3b8f5a90' }, 'CIRCLE_API_KEY'],
    ['CIRCLE_TEST_API_KEY without the others', { CIRCLE_TEST_API_KEY: 'TEST_API_KEY:abc:def' }, 'CIRCLE_TEST_ENTITY_SECRET', /together/],
    ['CIRCLE_TEST_WALLET_ID alone', { CIRCLE_TEST_WALLET_ID: '0b7a3e1c-52a4-4f0b-9c67-1d0e3b8f5a90' }, 'CIRCLE_TEST_API_KEY', /together/],
    ['CIRCLE_TEST_API_KEY a live key', { CIRCLE_TEST_API_KEY: 'LIVE_API_KEY:abc:def', CIRCLE_TEST_ENTITY_SECRET: 'abababababababababababababababababababababababababababababababab', CIRCLE_TEST_WALLET_ID: '0b7a3e1c-52a4-4f0b-9c67-1d0e3b8f5a90' }, 'CIRCLE_TEST_API_KEY', /testnet/],
    ['CIRCLE_TEST_ENTITY_SECRET malformed', { CIRCLE_TEST_API_KEY: 'TEST_API_KEY:abc:def', CIRCLE_TEST_ENTITY_SECRET: 'secret', CIRCLE_TEST_WALLET_ID: '0b7a3e1c-52a4-4f0b-9c67-1d0e3b8f5a90' }, 'CIRCLE_TEST_ENTITY_SECRET'],
    ['CIRCLE_TEST_FEE_LEVEL without the keys', { CIRCLE_TEST_FEE_LEVEL: 'LOW' }, 'CIRCLE_TEST_API_KEY'],
  ];
  for (const [label, env, variable, message] of invalid) {
    test(`${label} → ConfigError naming ${variable}`, () => {
      expectConfigError(env, variable, message);
    });
  }

  test('INCREASE_SANDBOX_*: all three give the sandbox keys (Increase’s sandbox by default), independent of the live ones', () => {
    const config = loadConfig({ INCREASE_SANDBOX_API_KEY: 'sandbox-key', INCREASE_SANDBOX_ACCOUNT_ID: 'account_sandbox1', INCREASE_SANDBOX_WEBHOOK_SECRET: 'whsecret-sandbox' }, []);
    assert.equal(config.increase, null);
    assert.deepEqual({ ...config.increaseSandbox }, { apiKey: 'sandbox-key', accountId: 'account_sandbox1', webhookSecret: 'whsecret-sandbox', baseURL: 'https://sandbox.increase.com', realTimePayments: null });
    assert.equal(loadConfig({}, []).increaseSandbox, null);
  });

  test('INCREASE_RTP_ENABLED=true with the live keys gives the RTP source account number; unset: ACH only', () => {
    const live = { INCREASE_API_KEY: 'key', INCREASE_ACCOUNT_ID: 'account_abc123', INCREASE_WEBHOOK_SECRET: 'whsecret-1' };
    assert.deepEqual(loadConfig({ ...live, INCREASE_RTP_ENABLED: 'true', INCREASE_RTP_ACCOUNT_NUMBER_ID: 'account_number_v18nkfqm6afpsrvy82b2' }, []).increase?.realTimePayments, { sourceAccountNumberId: 'account_number_v18nkfqm6afpsrvy82b2' });
    assert.equal(loadConfig(live, []).increase?.realTimePayments, null);
  });

  test('CIRCLE_TEST_*: all three give the testnet keys backing sandbox mode, independent of the live ones', () => {
    const config = loadConfig({ CIRCLE_TEST_API_KEY: 'TEST_API_KEY:abc:def', CIRCLE_TEST_ENTITY_SECRET: 'AB'.repeat(32), CIRCLE_TEST_WALLET_ID: '0b7a3e1c-52a4-4f0b-9c67-1d0e3b8f5a90', CIRCLE_TEST_FEE_LEVEL: 'low' }, []);
    assert.equal(config.circle, null);
    assert.equal(config.circleTest?.environment, 'test');
    assert.equal(config.circleTest?.entitySecret, 'ab'.repeat(32));
    assert.equal(config.circleTest?.feeLevel, 'LOW');
    assert.deepEqual(config.circleTest?.walletIds, ['0b7a3e1c-52a4-4f0b-9c67-1d0e3b8f5a90']);
    assert.equal(loadConfig({}, []).circleTest, null);
  });

  test('empty values mean "unset"', () => {
    const config = loadConfig({ PORT: '', DATABASE_URL: '', ADMIN_API_KEY: '', REDIS_URL: '' }, []);
    assert.equal(config.port, 4000);
    assert.equal(config.databaseUrl, undefined);
    assert.equal(config.adminApiKey, undefined);
    assert.equal(config.redisUrl, undefined);
  });

  test('every variable of docs/API.md §16 is documented', () => {
    const documented = new Set(configDocumentation.map((entry) => entry.name));
    for (const name of ['PORT', 'HOST', 'PUBLIC_URL', 'DATA_DIR', 'DATABASE_URL', 'ADMIN_API_KEY', 'SMTP_URL', 'REDIS_URL', 'RATE_LIMIT_PER_SECOND', 'RATE_LIMIT_BURST', 'SANDBOX_KYC_DELAY_MS', 'SANDBOX_PAYOUT_DELAY_MS', 'WEBHOOK_ALLOW_PRIVATE_TARGETS']) {
      assert.ok(documented.has(name), `${name} is documented`);
    }
  });
});
