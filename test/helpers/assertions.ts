import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import type { LightMyRequestResponse } from 'fastify';
import { compactDecrypt } from 'jose';
import { queryRows, type Database } from '../../src/db/client.ts';
import { adminApiKey, json, type TestContext } from './context.ts';

export interface ErrorBody {
  status: 'FAILED';
  errorCode: string;
  errorMessage: string;
  requestId: string;
}

/**
 * Asserts a response is the error envelope (docs/API.md §3) with this status and code, that it is
 * JSON, and that `requestId` repeats the Request-Id header. Returns the parsed body.
 */
export function assertError(response: LightMyRequestResponse, statusCode: number, errorCode: string, message?: RegExp | string): ErrorBody {
  assert.equal(response.statusCode, statusCode, `expected ${statusCode} ${errorCode}, got ${response.statusCode}: ${response.body.slice(0, 500)}`);
  assert.match(String(response.headers['content-type']), /^application\/json/);
  const body = json<ErrorBody>(response);
  assert.equal(body.status, 'FAILED');
  assert.equal(body.errorCode, errorCode, body.errorMessage);
  assert.equal(typeof body.errorMessage, 'string');
  assert.ok(body.errorMessage.length > 0, 'errorMessage is not empty');
  assert.match(String(response.headers['request-id']), /^req_/);
  assert.equal(body.requestId, response.headers['request-id'], 'requestId repeats the Request-Id header');
  if (message !== undefined) {
    if (typeof message === 'string') {
      assert.ok(body.errorMessage.includes(message), `errorMessage "${body.errorMessage}" should mention "${message}"`);
    } else {
      assert.match(body.errorMessage, message);
    }
  }
  return body;
}

/** 401 envelope with the Basic challenge (docs/API.md §3). */
export function assertUnauthorized(response: LightMyRequestResponse): ErrorBody {
  const body = assertError(response, 401, 'UNAUTHORIZED');
  assert.match(String(response.headers['www-authenticate']), /^Basic /);
  return body;
}

export interface SuccessBody<T> {
  status: 'SUCCEEDED';
  data: T;
}

export function assertSucceeded<T = Record<string, unknown>>(response: LightMyRequestResponse): T {
  assert.equal(response.statusCode, 200, response.body.slice(0, 500));
  assert.match(String(response.headers['request-id']), /^req_/);
  const body = json<SuccessBody<T>>(response);
  assert.equal(body.status, 'SUCCEEDED');
  return body.data;
}

/** Every row of `table` as JSON text, in primary-key order: compare before/after to prove nothing was written. */
export async function snapshotTable(database: Database, table: string): Promise<string[]> {
  if (!/^[a-z_]+$/.test(table)) {
    throw new Error(`bad table name ${table}`);
  }
  const rows = await queryRows<{ row: string }>(database.db, sql.raw(`select row_to_json(t)::text as row from "${table}" t order by 1`));
  return rows.map((entry) => entry.row);
}

/** Snapshots of the tables a customer write touches. */
export async function snapshotCustomerTables(database: Database): Promise<Record<string, string[]>> {
  return {
    customers: await snapshotTable(database, 'customers'),
    kyc_verifications: await snapshotTable(database, 'kyc_verifications'),
    jobs: await snapshotTable(database, 'jobs'),
  };
}

/** Decrypts a PII JWE with the merchant's keys as the admin API reveals them; checks the header. */
export async function decryptPii(context: TestContext, merchantId: string, jwe: string): Promise<{ plaintext: string; kid: string }> {
  const keys = json<SuccessBody<Array<{ id: string; key: string }>>>(await context.admin('GET', `/admin/v1/merchants/${merchantId}/pii_keys`)).data;
  const header = JSON.parse(Buffer.from(jwe.split('.')[0] ?? '', 'base64url').toString('utf8')) as { kid?: string; alg?: string; enc?: string };
  assert.equal(header.alg, 'dir');
  assert.equal(header.enc, 'A256GCM');
  const key = keys.find((candidate) => candidate.id === header.kid);
  assert.ok(key, `the JWE kid ${String(header.kid)} names one of the merchant's PII keys`);
  const { plaintext } = await compactDecrypt(jwe, Buffer.from(key.key, 'base64url'));
  return { plaintext: new TextDecoder().decode(plaintext), kid: key.id };
}

/** Identity data complete for KYC (docs/API.md §6), US address. */
export const completeKyc = {
  firstName: 'Ada',
  middleName: 'King',
  lastName: 'Lovelace',
  dateOfBirth: '1990-12-10',
  phoneNumber: '(415) 555-0123',
  address: { line1: '1 Market St', line2: 'Suite 5', city: 'San Francisco', state: 'CA', postalCode: '94105', country: 'US' },
} as const;

export interface CustomerData {
  id: string;
  referenceId: string;
  signupAt: number;
  merchantId: string;
  livemode: boolean;
  email?: string;
  supportedPaymentMethods?: string[];
  supportedPayoutMethods?: string[];
  firstName?: string;
  middleName?: string;
  lastName?: string;
  dateOfBirth?: string;
  phoneNumber?: string;
  address?: Record<string, string>;
  kycStatus: 'NOT_STARTED' | 'PENDING' | 'APPROVED' | 'REJECTED';
  createdAt: number;
  updatedAt: number;
}

let referenceCounter = 0;

/** A referenceId unique within the test process. */
export function uniqueReference(label = 'ref'): string {
  referenceCounter += 1;
  return `${label}-${process.pid}-${referenceCounter}`;
}

/**
 * Creates a customer through the API and returns its data (fails the test on anything but 200).
 * `livemode` is sent as given; 'omit' leaves the parameter out (live, docs/API.md §1).
 */
export async function createCustomer(context: TestContext, apiKey: string, body: Record<string, unknown> = {}, livemode: boolean | 'omit' = false): Promise<CustomerData> {
  const query = livemode === 'omit' ? '' : `?livemode=${String(livemode)}`;
  const response = await context.request({
    method: 'POST',
    url: `/v1/customers${query}`,
    apiKey,
    body: { referenceId: uniqueReference('customer'), signupAt: 1_700_000_000_000, ...body },
  });
  return assertSucceeded<CustomerData>(response);
}

/**
 * The admin API's guard (docs/API.md §4): without the operator's bearer token — none, a wrong one, or a
 * merchant's API key as Basic or Bearer — every admin route answers the 401 envelope.
 */
export async function assertAdminAuthRequired(context: TestContext, method: 'GET' | 'POST', url: string, body: unknown, merchantApiKey: string): Promise<void> {
  const attempts: Array<[string, Record<string, string>]> = [
    ['no Authorization header', {}],
    ['a wrong bearer token', { authorization: 'Bearer adm_wrong_key_0123456789abcdefghijklmnop' }],
    ['an empty bearer token', { authorization: 'Bearer ' }],
    ["a merchant's API key as Basic", { authorization: `Basic ${Buffer.from(`${merchantApiKey}:`).toString('base64')}` }],
    ["a merchant's API key as Bearer", { authorization: `Bearer ${merchantApiKey}` }],
    ['the admin key as Basic', { authorization: `Basic ${Buffer.from(`${adminApiKey}:`).toString('base64')}` }],
  ];
  for (const [label, headers] of attempts) {
    const response = await context.app.inject({
      method,
      url,
      headers: { ...headers, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
    });
    const error = assertError(response, 401, 'UNAUTHORIZED');
    assert.match(error.errorMessage, /Bearer/, label);
    assert.match(String(response.headers['www-authenticate']), /^Bearer /, `${label}: the challenge names the admin API's scheme`);
  }
}
