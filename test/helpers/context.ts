import { Writable } from 'node:stream';
import type { LightMyRequestResponse } from 'fastify';
import { loadConfig, type Config } from '../../src/config/index.ts';
import { createKeyRing, parseKeySpec, generateKeySpec, type KeyRing } from '../../src/crypto/keyring.ts';
import { createLogger } from '../../src/logger.ts';
import { installResponseCheck, type ResponseViolation } from '../../src/http/response-check.ts';
import { createPlatform, type Platform } from '../../src/platform.ts';
import { buildApp } from '../../src/app.ts';
import type { Api } from '../../src/http/types.ts';
import type { Database } from '../../src/db/client.ts';
import { openTestDatabase } from './database.ts';
import { TestClock } from './clock.ts';

export const adminApiKey = 'adm_test_key_0123456789abcdefghijklmnop';

export interface TestMerchant {
  id: string;
  apiKey: string;
  dashboardUser: { email: string; password: string };
}

export interface TestContext {
  app: Api;
  platform: Platform;
  database: Database;
  clock: TestClock;
  config: Config;
  keyRing: KeyRing;
  /** Every log line written during the test file, as raw JSON text. */
  logs: string[];
  createMerchant(options?: { live?: boolean; name?: string }): Promise<TestMerchant>;
  /** Runs every due job now (with the test clock). */
  drainJobs(): Promise<number>;
  request(options: { method: string; url: string; apiKey?: string; body?: unknown; headers?: Record<string, string> }): Promise<LightMyRequestResponse>;
  admin(method: string, url: string, body?: unknown): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

export function basicAuth(apiKey: string): string {
  return `Basic ${Buffer.from(`${apiKey}:`).toString('base64')}`;
}

let merchantCounter = 0;

export interface TestContextOptions {
  env?: Record<string, string>;
  clock?: TestClock;
  /**
   * Share another context's database (a second "process" on the same database: shared rate limits,
   * key-ring rotation). The context that opened the database closes it.
   */
  database?: Database;
  /** A specific key ring (rotation tests); default a fresh one-key ring. */
  keyRing?: KeyRing;
}

/**
 * Builds the real platform and app on a fresh database (PGlite, or PostgreSQL when DATABASE_URL is
 * set) with a test clock and captured logs. Nothing of our own is mocked.
 */
export async function createTestContext(options: TestContextOptions = {}): Promise<TestContext> {
  const config = loadConfig(
    {
      NODE_ENV: 'test',
      ADMIN_API_KEY: adminApiKey,
      LOG_LEVEL: 'info',
      PUBLIC_URL: 'http://paysail.test',
      SANDBOX_KYC_DELAY_MS: '2000',
      SANDBOX_PAYOUT_DELAY_MS: '2000',
      RATE_LIMIT_PER_SECOND: '10000',
      RATE_LIMIT_BURST: '20000',
      // Suites send thousands of deliberately bad credentials (every route × every bad key); the
      // per-address failure limit has its own tests with its defaults (test/http/common/auth-failures.test.ts).
      AUTH_FAILURES_PER_SECOND: '100000',
      AUTH_FAILURE_BURST: '100000',
      ...options.env,
    },
    [],
  );
  const logs: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, callback) {
      logs.push(String(chunk));
      callback();
    },
  });
  const logger = createLogger({ level: config.logLevel, stream });
  const keyRing = options.keyRing ?? createKeyRing(parseKeySpec(generateKeySpec('test1')));
  const clock = options.clock ?? new TestClock();
  const ownsDatabase = options.database === undefined;
  const database = options.database ?? (await openTestDatabase());
  const platform = await createPlatform({ config, database, keyRing, logger, clock });
  const app = await buildApp(platform);
  // Every JSON answer checked against its route's documented response schema (the contract test).
  const responseViolations: ResponseViolation[] = [];
  installResponseCheck(app, (violation) => responseViolations.push(violation));
  await app.ready();

  const context: TestContext = {
    app,
    platform,
    database,
    clock,
    config,
    keyRing,
    logs,
    async createMerchant(merchantOptions = {}) {
      merchantCounter += 1;
      const created = await platform.services.merchants.createMerchant({
        name: merchantOptions.name ?? `Merchant ${merchantCounter}`,
        email: `merchant-${process.pid}-${merchantCounter}-${Date.now()}@example.com`,
      });
      if (merchantOptions.live) {
        await platform.services.merchants.enableLive(created.merchant.id);
      }
      return { id: created.merchant.id, apiKey: created.apiKey, dashboardUser: created.dashboardUser };
    },
    drainJobs: () => platform.worker.drain(),
    request({ method, url, apiKey, body, headers }) {
      return app.inject({
        method: method as 'GET',
        url,
        headers: {
          ...(apiKey ? { authorization: basicAuth(apiKey) } : {}),
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...headers,
        },
        ...(body !== undefined ? { payload: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
      });
    },
    admin(method, url, body) {
      return app.inject({
        method: method as 'GET',
        url,
        headers: { authorization: `Bearer ${adminApiKey}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
      });
    },
    async close() {
      await app.close();
      await platform.close();
      if (ownsDatabase) {
        await database.close();
      }
      if (responseViolations.length > 0) {
        const listed = responseViolations.slice(0, 10).map((violation) => `${violation.method} ${violation.route} → ${violation.status}: ${violation.errors}`);
        throw new Error(`${responseViolations.length} answer(s) did not match the documented response schema:\n${listed.join('\n')}`);
      }
    },
  };
  return context;
}

/** Parses a JSON answer; fails loudly when it is not JSON. */
export function json<T = Record<string, unknown>>(response: LightMyRequestResponse): T {
  return JSON.parse(response.body) as T;
}
