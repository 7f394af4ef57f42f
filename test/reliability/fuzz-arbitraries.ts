import fc from 'fast-check';
import { testCards } from '../helpers/payment-pages.ts';
import type { IdKind } from '../../src/crypto/ids.ts';
import { fakeId, idKindOf, kindByParam, resolveSchema, type DocumentedOperation, type OpenApiDocument, type Schema } from './openapi.ts';


// The fuzzer's inputs (fuzz.ts): hostile values, valid values drawn from the OpenAPI schemas, and
// the request plans fast-check draws (pure data; fuzz-requests.ts turns a plan into a request).

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

export type Pools = Partial<Record<IdKind, string[]>>;

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

export type Credentials = 'own' | 'none' | 'badKey' | 'foreignMerchant' | 'adminOnV1' | 'merchantOnAdmin' | 'garbage';

export type BodyMutation =
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

export type Plan =
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

export function buildPlanArbitrary(document: OpenApiDocument, operations: DocumentedOperation[], pools: Pools): fc.Arbitrary<Plan> {
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
