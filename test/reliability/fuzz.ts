import fc from 'fast-check';
import { sql } from 'drizzle-orm';
import type { LightMyRequestResponse } from 'fastify';
import { adminApiKey, basicAuth, createTestContext, json, type TestContext, type TestMerchant } from '../helpers/context.ts';
import { createCustomer, completeKyc } from '../helpers/assertions.ts';
import { createPage as createPayoutPage } from '../helpers/payout-pages.ts';
import { createPage as createPaymentPage, testCards } from '../helpers/payment-pages.ts';
import { startSubscription } from '../helpers/subscriptions.ts';
import { createEndpoint } from '../helpers/webhooks.ts';
import { queryRows } from '../../src/db/client.ts';
import { errorStatus, type ErrorCode } from '../../src/http/errors.ts';
import type { IdKind } from '../../src/crypto/ids.ts';
import {
  createResponseValidator,
  fakeId,
  idKindOf,
  kindByParam,
  listOperations,
  matchOperation,
  resolveSchema,
  type DocumentedOperation,
  type OpenApiDocument,
  type Schema,
} from './openapi.ts';

/**
 * Schema-driven HTTP fuzzer. Every operation of the app's OpenAPI document gets requests built by
 * fast-check from its own schemas (path parameters, query, JSON body): valid values, mutated values
 * (wrong types, missing required fields, unknown keys, `__proto__`/`constructor` keys, huge and
 * hostile unicode strings, numeric edges, deep nesting, duplicate keys) and protocol abuse (wrong or
 * absent content types, malformed JSON, odd methods, mangled paths and queries, missing or foreign
 * credentials). Requests go in-process through `app.inject` against the real platform and database.
 *
 * Every answer is checked: no status ≥ 500; a JSON body with the Request-Id; the operation's
 * documented schema for that status (the error envelope when the request matches no operation),
 * with the error code's own status; and, for a sample of rejected hostile requests (one in
 * `writeCheckEvery`), that no table's rows changed: count and contents are compared before and after.
 * Generation is deterministic from the seed.
 */

export interface FuzzOptions {
  /** Requests to send. */
  runs: number;
  /** fast-check seed (printed in the summary; the same seed replays the same requests). */
  seed?: number;
  /** An existing context to fuzz (its database gets the fuzz data); default a fresh one, closed at the end. */
  context?: TestContext;
  /** Called every `progressEvery` requests. */
  onProgress?: (done: number, summary: FuzzSummary) => void;
  progressEvery?: number;
  /** Compare every table's rows (count and contents) around one rejected hostile request in this many (default 20). */
  writeCheckEvery?: number;
}

export interface FuzzFailure {
  request: string;
  category: string;
  status: number;
  problem: string;
  body: string;
}

export interface FuzzSummary {
  seed: number;
  requests: number;
  durationMs: number;
  /** CPU time of this process while sending (the machine is shared, so wall time varies). */
  cpuMs: number;
  /** Answers by HTTP status. */
  statuses: Record<string, number>;
  /** Requests by generator category (valid, a mutation, protocol abuse). */
  categories: Record<string, number>;
  /** Documented operations that received at least one request, of all documented operations. */
  operationsCovered: number;
  operationsTotal: number;
  /** Rejected hostile requests around which every table's rows (count and contents) were compared. */
  writeChecks: number;
  /** Requests that reached a 2xx (the generator also produces accepted input). */
  accepted: number;
  failureCount: number;
  /** The first failures (at most 50). */
  failures: FuzzFailure[];
}

// ---------------------------------------------------------------------------------------------
// Hostile values

const nastyStrings = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\u202Egnp.exe',
  '\u200F\u05E9\u05DC\u05D5\u05DD',
  '𝔘𝔫𝔦𝔠𝔬𝔡𝔢 😀👩‍👩‍👧‍👦',
  '\uD800',
  'x\uDFFFy',
  '\uFFFE',
  'end\uFFFF',
  '\uFEFFbom',
  'ＡＢＣ１２３',
  'Ω≈ç√∫˜µ≤≥÷',
  "' OR 1=1 --",
  '"; drop table customers; --',
  '<script>alert(1)</script>',
  '../../../../etc/passwd',
  '%00%2e%2e%2f',
  '${jndi:ldap://127.0.0.1/a}',
  '{{7*7}}',
  'null',
  'undefined',
  'true',
  'NaN',
  '-0',
  '1e309',
  '0x10',
  '\r\nSet-Cookie: a=b',
  '\t\b\f\v',
  'cus_00000000000000000000000000000000000',
  'sk_test_not_a_key',
];

/** Integers no field can hold: past a date's range (8.64e15), past 2^53 − 1, and far beyond. Every integer and date field gets them. */
const extremeIntegers = [9_000_000_000_000_000, -9_000_000_000_000_000, 8_640_000_000_000_001, 2 ** 53, -(2 ** 53), 2 ** 63, 1e308, -1e308];

const wrongTypeValues: unknown[] = [0, -1, 1.5, 2 ** 53, -(2 ** 31), 1e308, true, false, null, '', 'text', '123', [], [1, 'a'], {}, { nested: { deeper: true } }];

/** Raw JSON numbers that JavaScript cannot hold exactly. */
const rawNumbers = ['9999999999999999999999', '-0', '1e400', '-1e400', '0.0000000000000000000001', '1E2', '00012'];

const contentTypes = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/xml',
  'application/json; charset=utf-16',
  'application/json; charset=latin1',
  'application/jsonx',
  'application/vnd.api+json',
  'APPLICATION/JSON',
  'a/b/c',
  ';;;',
];

const malformedBodies = ['{"unterminated": ', '{"a":1,}', "{'a':1}", '{"a":NaN}', '\uFEFF{}', '{}{}', '[', '}', 'null', '[]', '"text"', '123', 'true', '{"a":"\\u12"}', '{"a":"\\x41"}', ' '];

const oddMethods = ['PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD', 'GET', 'POST', 'SEARCH', 'PROPFIND', 'TRACE'];

const pathMangles = ['', '%ZZ', '%00', '..', '%2e%2e', '%2F', 'a%2Fb', ' ', '%20', 'x'.repeat(5000), '😀', '%F0%9F%98%80', '%C0%AE', '__proto__', 'constructor', ';', '*', '?', '#'];

// ---------------------------------------------------------------------------------------------
// Arbitraries from JSON schemas (valid values)

type Pools = Partial<Record<IdKind, string[]>>;

function semanticArbitrary(name: string, schema: Schema, pools: Pools): fc.Arbitrary<unknown> | undefined {
  const kind = kindByParam[name];
  const pool = kind ? pools[kind] : undefined;
  if (pool && pool.length > 0 && (schema.type === 'string' || schema.type === undefined)) {
    return fc.constantFrom(...pool);
  }
  if (schema.type !== 'string') {
    return undefined;
  }
  if (/email/i.test(name)) {
    return fc.emailAddress();
  }
  if (/url$/i.test(name)) {
    return fc.oneof(fc.webUrl(), fc.constant('http://127.0.0.1:9/hooks'));
  }
  if (name === 'dateOfBirth') {
    return fc.date({ min: new Date('1900-01-01'), max: new Date('2010-01-01'), noInvalidDate: true }).map((date) => date.toISOString().slice(0, 10));
  }
  if (name === 'country') {
    return fc.constantFrom('US', 'GB', 'DE', 'ZZ');
  }
  if (name === 'state') {
    return fc.constantFrom('CA', 'NY', 'TX', 'XX');
  }
  if (name === 'postalCode') {
    return fc.constantFrom('94105', '10001-1234', 'SW1A 1AA');
  }
  if (name === 'phoneNumber') {
    return fc.constantFrom('(415) 555-0123', '+14155550123', '+442071838750', '555');
  }
  if (name === 'cardNumber') {
    return fc.constantFrom(...Object.values(testCards), '4242 4242 4242 4241');
  }
  if (name === 'cvc') {
    return fc.constantFrom('123', '1234', '12');
  }
  if (name === 'routingNumber') {
    return fc.constantFrom('021000021', '123456789');
  }
  if (name === 'accountNumber') {
    return fc.constantFrom('000123456789', '55550002', '12');
  }
  if (name === 'address' && schema.maxLength === 100) {
    return fc.constantFrom('0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', '0x000000000000000000000000000000000000dEaD', 'notanaddress');
  }
  return undefined;
}

function stringArbitrary(schema: Schema): fc.Arbitrary<string> {
  if (schema.pattern) {
    return fc.stringMatching(new RegExp(schema.pattern)).filter((value) => value.length >= (schema.minLength ?? 0) && value.length <= (schema.maxLength ?? Infinity));
  }
  const minLength = schema.minLength ?? 0;
  const maxLength = Math.min(schema.maxLength ?? 40, minLength + 40);
  return fc.oneof(
    { weight: 3, arbitrary: fc.string({ minLength, maxLength }) },
    { weight: 1, arbitrary: fc.string({ minLength, maxLength, unit: 'grapheme' }) },
    { weight: 1, arbitrary: fc.string({ minLength, maxLength, unit: 'binary' }) },
  );
}

function numberBound(value: number | boolean | undefined, fallback: number): number {
  return typeof value === 'number' ? value : fallback;
}

export function arbitraryFromSchema(document: OpenApiDocument, input: Schema | undefined, pools: Pools, name = '', depth = 0): fc.Arbitrary<unknown> {
  const schema = resolveSchema(document, input);
  if (!schema || depth > 6) {
    return fc.constant(null);
  }
  const semantic = semanticArbitrary(name, schema, pools);
  if (semantic) {
    return semantic;
  }
  if (schema.const !== undefined) {
    return fc.constant(schema.const);
  }
  if (schema.enum) {
    return fc.constantFrom(...schema.enum);
  }
  const branches = schema.anyOf ?? schema.oneOf;
  if (branches && branches.length > 0) {
    return fc.oneof(...branches.map((branch) => arbitraryFromSchema(document, branch, pools, name, depth + 1)));
  }
  if (schema.allOf && schema.allOf.length > 0) {
    return arbitraryFromSchema(document, schema.allOf[0], pools, name, depth + 1);
  }
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'string':
      return stringArbitrary(schema);
    case 'integer': {
      const min = numberBound(schema.minimum, -1_000_000);
      const max = numberBound(schema.maximum, 1_000_000_000_000);
      return fc.oneof(
        fc.integer({ min: Math.max(min, -(2 ** 31)), max: Math.min(max, 2 ** 31 - 1) }),
        fc.constantFrom(min, Math.min(max, Number.MAX_SAFE_INTEGER)),
        fc.constantFrom(...extremeIntegers),
      );
    }
    case 'number':
      return fc.double({ min: numberBound(schema.minimum, -1e9), max: numberBound(schema.maximum, 1e9), noNaN: true, noDefaultInfinity: true });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const minLength = schema.minItems ?? 0;
      const maxLength = Math.min(schema.maxItems ?? 4, minLength + 4);
      const items = arbitraryFromSchema(document, schema.items, pools, name, depth + 1);
      return schema.uniqueItems ? fc.uniqueArray(items, { minLength, maxLength, selector: (value) => JSON.stringify(value) }) : fc.array(items, { minLength, maxLength });
    }
    case 'object':
    default: {
      if (!schema.properties) {
        if (typeof schema.additionalProperties === 'object') {
          return fc.dictionary(fc.string({ minLength: 1, maxLength: 40 }), arbitraryFromSchema(document, schema.additionalProperties, pools, name, depth + 1), { maxKeys: 5 });
        }
        return fc.constant({});
      }
      const properties = Object.fromEntries(Object.entries(schema.properties).map(([key, value]) => [key, arbitraryFromSchema(document, value, pools, key, depth + 1)]));
      return fc.record(properties, { requiredKeys: (schema.required ?? []).filter((key) => key in properties) });
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Request plans: pure data drawn by fast-check, turned into a request when sent

type Credentials = 'own' | 'none' | 'badKey' | 'foreignMerchant' | 'adminOnV1' | 'merchantOnAdmin' | 'garbage';

type BodyMutation =
  | { kind: 'wrongType'; pick: number; value: unknown }
  | { kind: 'missingRequired'; pick: number }
  | { kind: 'unknownKey'; key: string }
  | { kind: 'prototypeKey'; key: '__proto__' | 'constructor' | 'prototype'; nested: boolean }
  | { kind: 'hugeString'; pick: number; size: number }
  | { kind: 'nastyString'; pick: number; value: string }
  | { kind: 'rawNumber'; pick: number; raw: string }
  | { kind: 'deepNesting'; pick: number; depth: number; atRoot: boolean }
  | { kind: 'bigArray'; pick: number; length: number }
  | { kind: 'duplicateKey'; pick: number; value: unknown };

type Plan =
  | { kind: 'valid'; operation: number; path: Record<string, string>; query: Record<string, unknown>; body: unknown; credentials: Credentials; idempotencyKey: string | null }
  | { kind: 'mutatedBody'; operation: number; path: Record<string, string>; query: Record<string, unknown>; body: unknown; mutation: BodyMutation; credentials: Credentials }
  | { kind: 'mutatedQuery'; operation: number; path: Record<string, string>; query: Record<string, unknown>; body: unknown; mutation: { kind: string; value: string } }
  | { kind: 'mutatedPath'; operation: number; query: Record<string, unknown>; body: unknown; mangle: string; which: number }
  | { kind: 'contentType'; operation: number; path: Record<string, string>; body: unknown; contentType: string | null }
  | { kind: 'malformedJson'; operation: number; path: Record<string, string>; text: string }
  | { kind: 'oddMethod'; operation: number; path: Record<string, string>; method: string; body: unknown }
  | { kind: 'credentials'; operation: number; path: Record<string, string>; query: Record<string, unknown>; body: unknown; credentials: Credentials }
  | { kind: 'header'; operation: number; path: Record<string, string>; query: Record<string, unknown>; body: unknown; header: string; value: string };

function credentialsArbitrary(): fc.Arbitrary<Credentials> {
  return fc.oneof(
    { weight: 90, arbitrary: fc.constant<Credentials>('own') },
    { weight: 10, arbitrary: fc.constantFrom<Credentials>('none', 'badKey', 'foreignMerchant', 'adminOnV1', 'merchantOnAdmin', 'garbage') },
  );
}

function bodyMutationArbitrary(): fc.Arbitrary<BodyMutation> {
  const pick = fc.nat(1000);
  return fc.oneof(
    { weight: 5, arbitrary: fc.record({ kind: fc.constant('wrongType' as const), pick, value: fc.constantFrom(...wrongTypeValues) }) },
    { weight: 3, arbitrary: fc.record({ kind: fc.constant('missingRequired' as const), pick }) },
    { weight: 3, arbitrary: fc.record({ kind: fc.constant('unknownKey' as const), key: fc.constantFrom('fieldNobodyDefined', 'isAdmin', '$where', 'merchantId', 'id', 'status', 'livemode', '', ' ', 'a'.repeat(300)) }) },
    { weight: 3, arbitrary: fc.record({ kind: fc.constant('prototypeKey' as const), key: fc.constantFrom('__proto__' as const, 'constructor' as const, 'prototype' as const), nested: fc.boolean() }) },
    // Mostly just over the field limits; sometimes past the 1 MiB body limit.
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('hugeString' as const), pick, size: fc.oneof({ weight: 4, arbitrary: fc.integer({ min: 300, max: 70_000 }) }, { weight: 1, arbitrary: fc.integer({ min: 1024 * 1024, max: 1024 * 1024 + 4096 }) }) }) },
    { weight: 5, arbitrary: fc.record({ kind: fc.constant('nastyString' as const), pick, value: fc.oneof(fc.constantFrom(...nastyStrings), fc.string({ unit: 'binary', maxLength: 30 })) }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('rawNumber' as const), pick, raw: fc.constantFrom(...rawNumbers) }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('deepNesting' as const), pick, depth: fc.integer({ min: 50, max: 5000 }), atRoot: fc.boolean() }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('bigArray' as const), pick, length: fc.integer({ min: 10, max: 20_000 }) }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('duplicateKey' as const), pick, value: fc.constantFrom(...wrongTypeValues) }) },
  );
}

function queryMutationArbitrary(): fc.Arbitrary<{ kind: string; value: string }> {
  return fc.oneof(
    fc.record({ kind: fc.constant('livemode'), value: fc.constantFrom('maybe', '', '1', '0', 'TRUE', 'yes', 'null', 'true&livemode=false', '%ZZ', '😀') }),
    fc.record({ kind: fc.constant('unknown'), value: fc.constantFrom('foo=bar', '__proto__[polluted]=1', 'constructor[prototype][polluted]=1', 'livemode[]=true', 'livemode[a]=1', 'a'.repeat(3000) + '=1', '=', '&&&', '%00=%00') }),
    fc.record({ kind: fc.constant('parameter'), value: fc.oneof(fc.constantFrom(...nastyStrings), fc.constantFrom('-1', '0', '1e9', '99999999999999999999', 'abc', '1.5', 'x'.repeat(2000))) }),
  );
}

// ---------------------------------------------------------------------------------------------
// The engine

interface Actors {
  merchant: TestMerchant;
  foreign: TestMerchant;
  pools: Pools;
}

/** Objects of every kind for the fuzzed merchant, so ids in generated requests exist (deeper paths run). */
async function seedObjects(context: TestContext): Promise<Actors> {
  const merchant = await context.createMerchant({ live: true, name: 'Fuzz merchant' });
  const foreign = await context.createMerchant({ name: 'Fuzz foreign merchant' });
  const pools: Pools = { merchant: [merchant.id, foreign.id] };
  const add = (kind: IdKind, id: unknown) => {
    if (typeof id === 'string') {
      (pools[kind] ??= []).push(id);
    }
  };
  for (const owner of [merchant, foreign]) {
    await context.request({ method: 'POST', url: '/v1/test_helpers/balance/fund?livemode=false', apiKey: owner.apiKey, body: { amount: 100_000_000, currency: 'USDC' } });
    add('customer', (await createCustomer(context, owner.apiKey, { ...completeKyc })).id);
    add('payoutPage', (await createPayoutPage(context, owner)).id);
    add('paymentPage', (await createPaymentPage(context, owner)).id);
    const { page, subscription } = await startSubscription(context, owner, { interval: 'MONTH' });
    add('paymentPage', page.id);
    add('payment', page.paymentId);
    add('subscription', subscription.id);
    add('webhookEndpoint', (await createEndpoint(context, owner, { url: 'http://127.0.0.1:9/hooks' })).id);
  }
  await context.admin('POST', `/admin/v1/merchants/${merchant.id}/balance/credit`, { amount: 100_000_000, currency: 'USDC' });
  add('payoutPage', (await createPayoutPage(context, merchant, {}, '?livemode=true')).id);
  const key = json<{ data: { id?: string; apiKey?: { id?: string } } }>(await context.admin('POST', `/admin/v1/merchants/${merchant.id}/api_keys`, {})).data;
  add('apiKey', key.id ?? key.apiKey?.id);
  await context.drainJobs();
  for (const owner of [merchant, foreign]) {
    const listed = json<{ data: { events?: Array<{ id: string }> } | Array<{ id: string }> }>(await context.request({ method: 'GET', url: '/v1/events?livemode=false', apiKey: owner.apiKey })).data;
    for (const event of (Array.isArray(listed) ? listed : (listed.events ?? [])).slice(0, 3)) {
      add('event', event.id);
    }
  }
  const deliveries = await queryRows<{ id: string }>(context.database.db, sql`select id from webhook_deliveries order by id limit 4`);
  for (const delivery of deliveries) {
    add('webhookDelivery', delivery.id);
  }
  const entitlements = await queryRows<{ id: string }>(context.database.db, sql`select id from entitlements order by id limit 2`);
  for (const entitlement of entitlements) {
    add('entitlement', entitlement.id);
  }
  return { merchant, foreign, pools };
}

/** Every JSON path (as keys) of a value, objects and arrays, root excluded. */
function pathsOf(value: unknown, prefix: Array<string | number> = [], out: Array<Array<string | number>> = []): Array<Array<string | number>> {
  if (value !== null && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      const path = [...prefix, Array.isArray(value) ? Number(key) : key];
      out.push(path);
      pathsOf(child, path, out);
    }
  }
  return out;
}

function setAt(root: unknown, path: Array<string | number>, value: unknown): unknown {
  if (path.length === 0) {
    return value;
  }
  const copy = (Array.isArray(root) ? [...(root as unknown[])] : { ...(root as Record<string, unknown>) }) as Record<string | number, unknown>;
  const [head, ...rest] = path as [string | number, ...Array<string | number>];
  copy[head] = setAt(copy[head], rest, value);
  return copy;
}

function deleteAt(root: unknown, path: Array<string | number>): unknown {
  if (root === null || typeof root !== 'object') {
    return root;
  }
  if (path.length === 1) {
    if (Array.isArray(root)) {
      return root.filter((_value, index) => index !== path[0]);
    }
    const copy = { ...(root as Record<string, unknown>) };
    delete copy[String(path[0])];
    return copy;
  }
  const [head, ...rest] = path as [string | number, ...Array<string | number>];
  return setAt(root, [head], deleteAt((root as Record<string | number, unknown>)[head], rest));
}

const placeholder = '"@@FUZZ@@"';

/** Serialises a body with one mutation applied (textual where JSON.stringify cannot express it). */
function mutateBody(body: unknown, mutation: BodyMutation): string {
  const base = body !== null && typeof body === 'object' ? body : {};
  const paths = pathsOf(base);
  const chosen = paths.length > 0 ? paths[('pick' in mutation ? mutation.pick : 0) % paths.length] : undefined;
  const target = chosen ?? ['fuzzField'];
  switch (mutation.kind) {
    case 'wrongType':
      return JSON.stringify(setAt(base, target, mutation.value));
    case 'missingRequired':
      return JSON.stringify(chosen ? deleteAt(base, chosen) : base);
    case 'unknownKey':
      return JSON.stringify({ ...base, [mutation.key]: 1 });
    case 'prototypeKey': {
      const injected = mutation.key === 'constructor' ? '{"prototype":{"polluted":true}}' : '{"polluted":true,"isAdmin":true}';
      const text = JSON.stringify(mutation.nested && chosen ? setAt(base, target, JSON.parse(placeholder)) : { ...base, fuzzSlot: JSON.parse(placeholder) });
      const slot = mutation.nested && chosen ? injected.replace('{', `{"${mutation.key}":${injected},`) : injected;
      return mutation.nested && chosen ? text.replace(placeholder, slot) : text.replace(`"fuzzSlot":${placeholder}`, `"${mutation.key}":${injected}`);
    }
    case 'hugeString':
      return JSON.stringify(setAt(base, target, 'x'.repeat(mutation.size)));
    case 'nastyString':
      return JSON.stringify(setAt(base, target, mutation.value));
    case 'rawNumber':
      return JSON.stringify(setAt(base, target, JSON.parse(placeholder))).replace(placeholder, mutation.raw);
    case 'deepNesting': {
      const nested = `${'['.repeat(mutation.depth)}${']'.repeat(mutation.depth)}`;
      return mutation.atRoot ? nested : JSON.stringify(setAt(base, target, JSON.parse(placeholder))).replace(placeholder, nested);
    }
    case 'bigArray':
      return JSON.stringify(setAt(base, target, Array.from({ length: mutation.length }, (_value, index) => index)));
    case 'duplicateKey': {
      const text = JSON.stringify(base);
      const key = chosen && typeof chosen.at(-1) === 'string' && chosen.length === 1 ? String(chosen[0]) : 'fuzzField';
      return text === '{}' ? `{"${key}":1,"${key}":${JSON.stringify(mutation.value)}}` : `{"${key}":${JSON.stringify(mutation.value)},${text.slice(1)}`;
    }
  }
}

interface BuiltRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string;
  /** Input the server must refuse without writing (checked on a sample). */
  hostile: boolean;
  operation: DocumentedOperation;
}

export async function runFuzz(options: FuzzOptions): Promise<FuzzSummary> {
  const seed = options.seed ?? Date.now() % 2 ** 31;
  const ownsContext = options.context === undefined;
  const context = options.context ?? (await createTestContext({ env: { LOG_LEVEL: 'warn', RATE_LIMIT_PER_SECOND: '1000000', RATE_LIMIT_BURST: '1000000', AUTH_FAILURES_PER_SECOND: '1000000', AUTH_FAILURE_BURST: '1000000' } }));
  const started = Date.now();
  const summary: FuzzSummary = { seed, requests: 0, durationMs: 0, cpuMs: 0, statuses: {}, categories: {}, operationsCovered: 0, operationsTotal: 0, writeChecks: 0, accepted: 0, failureCount: 0, failures: [] };
  try {
    const document = context.app.swagger() as unknown as OpenApiDocument;
    const operations = listOperations(document);
    summary.operationsTotal = operations.length;
    const validate = createResponseValidator(document);
    const actors = await seedObjects(context);
    const cpuBefore = process.cpuUsage();
    const covered = new Set<string>();
    const tables = (await queryRows<{ table_name: string }>(context.database.db, sql`select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE' order by table_name`))
      .map((row) => row.table_name)
      // Refused requests may legitimately write these: the stored answer of an Idempotency-Key and the job/log bookkeeping of the request itself.
      // The audit log records refused requests on purpose (decision 0028): checked on its own below, not in the digest.
      .filter((table) => !['idempotency_keys', '__drizzle_migrations', 'audit_events'].includes(table));
    // Each table's row count and an order-independent digest of its rows' contents (the sum of a
    // 64-bit hash of each row as JSON): an UPDATE, or a DELETE + INSERT that keeps the count, changes
    // it. Left out: api_keys.last_used_at, which any authenticated request may advance (advisory,
    // written off the request path at most once a minute), refused or not.
    const unwatchedColumns: Record<string, string[]> = { api_keys: ['last_used_at'] };
    const rowText = (table: string) => `(to_jsonb(t)${(unwatchedColumns[table] ?? []).map((column) => ` - '${column}'`).join('')})::text`;
    const countRows = async (): Promise<string> => {
      const rows = await queryRows<Record<string, string>>(
        context.database.db,
        sql.raw(`select ${tables.map((table) => `(select count(*)::text || ':' || coalesce(sum(hashtextextended(${rowText(table)}, 0)::numeric), 0)::text from "${table}" t) as "${table}"`).join(', ')}`),
      );
      return JSON.stringify(rows[0]);
    };

    const countAuditRows = async (): Promise<number> => Number((await queryRows<{ count: string }>(context.database.db, sql`select count(*)::text as count from audit_events`))[0]?.count ?? 0);

    const planArbitrary = buildPlanArbitrary(document, operations, actors.pools);
    const fail = (built: BuiltRequest, category: string, response: LightMyRequestResponse, problem: string) => {
      summary.failureCount += 1;
      if (summary.failures.length < 50) {
        summary.failures.push({ request: `${built.method} ${built.url.slice(0, 300)}`, category, status: response.statusCode, problem, body: response.body.slice(0, 500) });
      }
    };

    const batchSize = 250;
    let hostileCount = 0;

    for (let batch = 0; summary.requests < options.runs; batch += 1) {
      const plans = fc.sample(planArbitrary, { seed: seed + batch, numRuns: Math.min(batchSize, options.runs - summary.requests) });
      for (const plan of plans) {
        const built = buildRequest(document, operations, plan, actors);
        summary.categories[plan.kind] = (summary.categories[plan.kind] ?? 0) + 1;
        covered.add(`${built.operation.method} ${built.operation.path}`);
        hostileCount += built.hostile ? 1 : 0;
        const checkWrites = built.hostile && hostileCount % (options.writeCheckEvery ?? 20) === 0;
        // Audit rows land just after each answer: the previous request's first, so they are not counted as this one's.
        if (checkWrites) {
          await context.platform.services.audit.flush();
        }
        const before = checkWrites ? await countRows() : '';
        const auditBefore = checkWrites ? await countAuditRows() : 0;
        const response = await context.app.inject({ method: built.method as 'GET', url: built.url, headers: built.headers, ...(built.payload !== undefined ? { payload: built.payload } : {}) });
        summary.requests += 1;
        summary.statuses[response.statusCode] = (summary.statuses[response.statusCode] ?? 0) + 1;
        if (response.statusCode < 300) {
          summary.accepted += 1;
        }
        for (const problem of checkResponse(operations, validate, built, response)) {
          fail(built, plan.kind, response, problem);
        }
        // An accepted settings change may size a fuzzed merchant's limit down to 1/s: back to the
        // default, or the rest of the run answers 429 before validation (689 of 10,000 did).
        if (response.statusCode < 300 && built.operation.path === '/admin/v1/merchants/{merchantId}/settings') {
          for (const id of [actors.merchant.id, actors.foreign.id]) {
            await context.admin('POST', `/admin/v1/merchants/${id}/settings`, { rateLimitPerSecond: null, rateLimitBurst: null });
          }
        }
        if (checkWrites && response.statusCode >= 400 && response.statusCode !== 402) {
          summary.writeChecks += 1;
          const afterCounts = await countRows();
          if (afterCounts !== before) {
            fail(built, plan.kind, response, `a refused request changed rows (count:digest): ${diffCounts(before, afterCounts)}`);
          }
          // Its only trace: at most one audit row, of this very request, recorded as FAILED with its status.
          await context.platform.services.audit.flush();
          const recorded = await queryRows<{ outcome: string; status_code: number }>(context.database.db, sql`select outcome, status_code from audit_events where request_id = ${String(response.headers['request-id'])}`);
          const added = (await countAuditRows()) - auditBefore;
          if (added !== recorded.length || recorded.length > 1 || recorded.some((row) => row.outcome !== 'FAILED' || Number(row.status_code) !== response.statusCode)) {
            fail(built, plan.kind, response, `a refused request left audit rows other than its own FAILED one: ${added} added, ${JSON.stringify(recorded)}`);
          }
        }
        if (options.onProgress && summary.requests % (options.progressEvery ?? 1000) === 0) {
          summary.durationMs = Date.now() - started;
          options.onProgress(summary.requests, summary);
        }
      }
    }
    const cpu = process.cpuUsage(cpuBefore);
    summary.cpuMs = Math.round((cpu.user + cpu.system) / 1000);
    summary.operationsCovered = operations.filter((operation) => covered.has(`${operation.method} ${operation.path}`)).length;
    // Crashes log at error level (expected refusals log below it): none may have happened.
    const errorLines = context.logs.filter((line) => /"level":(5\d|60)/.test(line));
    for (const line of errorLines.slice(0, 5)) {
      summary.failureCount += 1;
      summary.failures.push({ request: 'log', category: 'log', status: 0, problem: 'an error-level log line', body: line.slice(0, 500) });
    }
  } finally {
    summary.durationMs = Date.now() - started;
    if (ownsContext) {
      await context.close();
    }
  }
  return summary;
}

function diffCounts(before: string, after: string): string {
  const a = JSON.parse(before) as Record<string, string>;
  const b = JSON.parse(after) as Record<string, string>;
  return Object.keys(b)
    .filter((table) => a[table] !== b[table])
    .map((table) => `${table} ${a[table]}→${b[table]}`)
    .join(', ');
}

function buildPlanArbitrary(document: OpenApiDocument, operations: DocumentedOperation[], pools: Pools): fc.Arbitrary<Plan> {
  const perOperation = operations.map((operation, index) => {
    const path = fc.record(
      Object.fromEntries(
        operation.pathParameters.map((parameter) => {
          const kind = idKindOf(operation.path, parameter.name);
          const pool = kind ? (pools[kind] ?? []) : [];
          const fake = fakeId(operation.path, parameter.name, resolveSchema(document, parameter.schema));
          return [parameter.name, pool.length > 0 ? fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...pool) }, { weight: 1, arbitrary: fc.constant(fake) }) : fc.constant(fake)];
        }),
      ),
    ) as fc.Arbitrary<Record<string, string>>;
    const query = fc.record(
      Object.fromEntries(
        operation.queryParameters.map((parameter) => [
          parameter.name,
          parameter.name === 'livemode' ? fc.oneof({ weight: 4, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }) : arbitraryFromSchema(document, parameter.schema, pools, parameter.name),
        ]),
      ),
      { requiredKeys: operation.queryParameters.filter((parameter) => parameter.required || parameter.name === 'livemode').map((parameter) => parameter.name) },
    ) as fc.Arbitrary<Record<string, unknown>>;
    const body = operation.bodySchema ? arbitraryFromSchema(document, operation.bodySchema, pools) : fc.constant(undefined);
    const op = fc.constant(index);
    const hasBody = operation.bodySchema !== undefined;
    const variants: Array<{ weight: number; arbitrary: fc.Arbitrary<Plan> }> = [
      { weight: 12, arbitrary: fc.record({ kind: fc.constant('valid' as const), operation: op, path, query, body, credentials: credentialsArbitrary(), idempotencyKey: fc.option(fc.uuid(), { freq: 4, nil: null }) as fc.Arbitrary<string | null> }) },
      { weight: 12, arbitrary: fc.record({ kind: fc.constant('mutatedQuery' as const), operation: op, path, query, body, mutation: queryMutationArbitrary() }) },
      { weight: 6, arbitrary: fc.record({ kind: fc.constant('mutatedPath' as const), operation: op, query, body, mangle: fc.oneof(fc.constantFrom(...pathMangles), fc.string({ unit: 'binary', maxLength: 20 })), which: fc.nat(10) }) },
      { weight: 5, arbitrary: fc.record({ kind: fc.constant('oddMethod' as const), operation: op, path, method: fc.constantFrom(...oddMethods), body }) },
      { weight: 6, arbitrary: fc.record({ kind: fc.constant('credentials' as const), operation: op, path, query, body, credentials: fc.constantFrom<Credentials>('none', 'badKey', 'foreignMerchant', 'adminOnV1', 'merchantOnAdmin', 'garbage') }) },
      {
        weight: 4,
        arbitrary: fc.record({
          kind: fc.constant('header' as const),
          operation: op,
          path,
          query,
          body,
          header: fc.constantFrom('idempotency-key', 'content-length-ish', 'accept', 'x-forwarded-for', 'request-id'),
          value: fc.oneof(fc.constantFrom('', ' ', 'x'.repeat(300), 'x'.repeat(8000), '../..', '*/*', 'text/html', '__proto__'), fc.string({ maxLength: 40 })),
        }),
      },
    ];
    if (hasBody) {
      variants.push(
        { weight: 40, arbitrary: fc.record({ kind: fc.constant('mutatedBody' as const), operation: op, path, query, body, mutation: bodyMutationArbitrary(), credentials: credentialsArbitrary() }) },
        { weight: 6, arbitrary: fc.record({ kind: fc.constant('contentType' as const), operation: op, path, body, contentType: fc.option(fc.constantFrom(...contentTypes), { freq: 5, nil: null }) as fc.Arbitrary<string | null> }) },
        { weight: 6, arbitrary: fc.record({ kind: fc.constant('malformedJson' as const), operation: op, path, text: fc.oneof(fc.constantFrom(...malformedBodies), fc.string({ unit: 'binary', maxLength: 60 })) }) },
      );
    }
    return fc.oneof(...variants);
  });
  return fc.oneof(...perOperation);
}

function queryString(query: Record<string, unknown>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined) {
      search.append(name, typeof value === 'string' ? value : JSON.stringify(value));
    }
  }
  const text = search.toString();
  return text === '' ? '' : `?${text}`;
}

function fillPath(operation: DocumentedOperation, values: Record<string, string>): string {
  return operation.path.replace(/\{([^}]+)\}/g, (_match, name: string) => encodeURIComponent(values[name] ?? 'missing'));
}

function authHeaders(operation: DocumentedOperation, credentials: Credentials, actors: Actors): Record<string, string> {
  const own = operation.access === 'admin' ? `Bearer ${adminApiKey}` : operation.access === 'merchant' ? basicAuth(actors.merchant.apiKey) : undefined;
  switch (credentials) {
    case 'own':
      return own ? { authorization: own } : {};
    case 'none':
      return {};
    case 'badKey':
      return { authorization: operation.access === 'admin' ? 'Bearer adm_wrong_0123456789abcdefghijklmn' : basicAuth('sk_fuzz_0123456789abcdefghij') };
    case 'foreignMerchant':
      return { authorization: basicAuth(actors.foreign.apiKey) };
    case 'adminOnV1':
      return { authorization: `Bearer ${adminApiKey}` };
    case 'merchantOnAdmin':
      return { authorization: basicAuth(actors.merchant.apiKey) };
    case 'garbage':
      return { authorization: 'Basic !!!not-base64!!!' };
  }
}

function buildRequest(document: OpenApiDocument, operations: DocumentedOperation[], plan: Plan, actors: Actors): BuiltRequest {
  const operation = operations[plan.operation] as DocumentedOperation;
  const json = { 'content-type': 'application/json' };
  const withBody = (text: string | undefined) => (text === undefined ? {} : { payload: text });
  const bodyText = (body: unknown) => (operation.bodySchema ? JSON.stringify(body ?? {}) : undefined);
  switch (plan.kind) {
    case 'valid': {
      const payload = bodyText(plan.body);
      return {
        method: operation.method,
        url: fillPath(operation, plan.path) + queryString(plan.query),
        headers: { ...authHeaders(operation, plan.credentials, actors), ...(payload !== undefined ? json : {}), ...(plan.idempotencyKey ? { 'idempotency-key': plan.idempotencyKey } : {}) },
        ...withBody(payload),
        hostile: false,
        operation,
      };
    }
    case 'mutatedBody':
      return {
        method: operation.method,
        url: fillPath(operation, plan.path) + queryString(plan.query),
        headers: { ...authHeaders(operation, plan.credentials, actors), ...json },
        payload: mutateBody(plan.body, plan.mutation),
        // A mutation may still be a valid body (a wrong type where any is allowed); the answer decides.
        hostile: true,
        operation,
      };
    case 'mutatedQuery': {
      const base = queryString(plan.query);
      let url = fillPath(operation, plan.path);
      if (plan.mutation.kind === 'parameter') {
        const names = operation.queryParameters.map((parameter) => parameter.name);
        const name = names.length > 0 ? (names[plan.mutation.value.length % names.length] as string) : 'fuzz';
        url += queryString({ ...plan.query, [name]: plan.mutation.value });
      } else if (plan.mutation.kind === 'livemode') {
        url += `?livemode=${plan.mutation.value}`;
      } else {
        url += `${base === '' ? '?' : `${base}&`}${plan.mutation.value}`;
      }
      const payload = bodyText(plan.body);
      return { method: operation.method, url, headers: { ...authHeaders(operation, 'own', actors), ...(payload !== undefined ? json : {}) }, ...withBody(payload), hostile: true, operation };
    }
    case 'mutatedPath': {
      const values: Record<string, string> = {};
      const names = operation.pathParameters.map((parameter) => parameter.name);
      for (const name of names) {
        values[name] = fakeId(operation.path, name, resolveSchema(document, operation.pathParameters.find((parameter) => parameter.name === name)?.schema));
      }
      let url: string;
      if (names.length > 0) {
        const target = names[plan.which % names.length] as string;
        url = operation.path.replace(/\{([^}]+)\}/g, (_match, name: string) => (name === target ? (/%|^[\x21-\x7e]*$/.test(plan.mangle) ? plan.mangle : encodeURIComponent(plan.mangle)) : encodeURIComponent(values[name] ?? '')));
      } else {
        // No parameter: mangle the path itself (extra segment, trailing garbage, case).
        const variants = [`${operation.path}/${encodeURIComponent(plan.mangle)}`, `${operation.path}//`, operation.path.toUpperCase(), `${operation.path}%00`, `/${encodeURIComponent(plan.mangle)}${operation.path}`];
        url = variants[plan.which % variants.length] as string;
      }
      const payload = bodyText(plan.body);
      return { method: operation.method, url: url + queryString(plan.query), headers: { ...authHeaders(operation, 'own', actors), ...(payload !== undefined ? json : {}) }, ...withBody(payload), hostile: true, operation };
    }
    case 'contentType':
      return {
        method: operation.method,
        url: fillPath(operation, plan.path) + '?livemode=false',
        headers: { ...authHeaders(operation, 'own', actors), ...(plan.contentType ? { 'content-type': plan.contentType } : {}) },
        payload: plan.contentType?.startsWith('application/x-www-form') ? 'amount=1&currency=USD' : JSON.stringify(plan.body ?? {}),
        hostile: true,
        operation,
      };
    case 'malformedJson':
      return { method: operation.method, url: fillPath(operation, plan.path) + '?livemode=false', headers: { ...authHeaders(operation, 'own', actors), ...json }, payload: plan.text, hostile: true, operation };
    case 'oddMethod': {
      const payload = plan.method === 'GET' || plan.method === 'HEAD' ? undefined : JSON.stringify(plan.body ?? {});
      return { method: plan.method, url: fillPath(operation, plan.path) + '?livemode=false', headers: { ...authHeaders(operation, 'own', actors), ...(payload !== undefined ? json : {}) }, ...withBody(payload), hostile: plan.method !== operation.method, operation };
    }
    case 'credentials': {
      const payload = bodyText(plan.body);
      return {
        method: operation.method,
        url: fillPath(operation, plan.path) + queryString(plan.query),
        headers: { ...authHeaders(operation, plan.credentials, actors), ...(payload !== undefined ? json : {}) },
        ...withBody(payload),
        // The other merchant's own key on its own routes is a valid request; everything else must be refused.
        hostile: plan.credentials !== 'foreignMerchant' && !(operation.access === 'public'),
        operation,
      };
    }
    case 'header': {
      const payload = bodyText(plan.body);
      const value = plan.value.replace(/[^\t\x20-\x7e]/g, '?');
      return {
        method: operation.method,
        url: fillPath(operation, plan.path) + queryString(plan.query),
        headers: { ...authHeaders(operation, 'own', actors), ...(payload !== undefined ? json : {}), [plan.header]: value },
        ...withBody(payload),
        hostile: false,
        operation,
      };
    }
  }
}

/** Everything wrong with one answer (empty when it is right). */
function checkResponse(operations: DocumentedOperation[], validate: ReturnType<typeof createResponseValidator>, built: BuiltRequest, response: LightMyRequestResponse): string[] {
  const problems: string[] = [];
  const status = response.statusCode;
  if (status >= 500) {
    problems.push(`status ${status}`);
  }
  const requestId = String(response.headers['request-id'] ?? '');
  if (!/^req_/.test(requestId)) {
    problems.push('no Request-Id header');
  }
  if (built.method === 'HEAD') {
    return problems;
  }
  if (!String(response.headers['content-type'] ?? '').startsWith('application/json')) {
    problems.push(`content-type ${String(response.headers['content-type'])}`);
    return problems;
  }
  let body: unknown;
  try {
    body = JSON.parse(response.body);
  } catch {
    problems.push('the body is not JSON');
    return problems;
  }
  // As the client sends it: dot segments resolved, the fragment dropped.
  const urlPath = new URL(built.url, 'http://fuzz.invalid').pathname;
  const operation = matchOperation(operations, built.method, urlPath);
  if (status >= 400) {
    const envelope = body as { errorCode?: string; requestId?: string };
    if (envelope.requestId !== requestId) {
      problems.push('the envelope requestId differs from the header');
    }
    if (envelope.errorCode && errorStatus[envelope.errorCode as ErrorCode] !== status) {
      problems.push(`errorCode ${envelope.errorCode} answered with status ${status}`);
    }
  }
  const check = validate(operation, status, body);
  if (operation && !check.documented) {
    problems.push(`status ${status} is not documented for ${operation.method} ${operation.path}`);
  }
  if (!operation && status < 400) {
    problems.push(`a request matching no documented operation succeeded`);
  }
  for (const error of check.errors) {
    problems.push(`schema: ${error}`);
  }
  return problems;
}
