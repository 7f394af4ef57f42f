import assert from 'node:assert/strict';
import net from 'node:net';
import { after, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { adminApiKey, basicAuth, createTestContext, json } from '../../helpers/context.ts';
import { assertError } from '../../helpers/assertions.ts';
import { fakeId, listOperations, resolveSchema, type Access, type OpenApiDocument, type Operation, type Schema } from '../../reliability/openapi.ts';

/**
 * The checks every route shares (docs/API.md §1, §3), run against every operation in the built app's
 * OpenAPI document, so routes added later are covered without touching this file. Routes hidden
 * from the document (docs UI, /metrics, hosted HTML pages) are not API routes and are not listed.
 */

interface RouteUnderTest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  url: string;
  access: Access;
  operation: Operation;
  /** A JSON API route (not an HTML page or form endpoint that happens to be documented). */
  isJsonApi: boolean;
}

const context = await createTestContext();
after(async () => context.close());
const merchant = await context.createMerchant();
const document = context.app.swagger() as unknown as OpenApiDocument;

function resolve(schema: Schema | undefined): Schema | undefined {
  return resolveSchema(document, schema);
}

// The enumeration is shared with the reliability harnesses (fuzzer, isolation matrix).
const routes: RouteUnderTest[] = listOperations(document).map((documented) => ({
  method: documented.method,
  path: documented.path,
  url: documented.path.replace(/\{([^}]+)\}/g, (_match, name: string) => fakeId(documented.path, name, resolve(documented.pathParameters.find((parameter) => parameter.name === name)?.schema))),
  access: documented.access,
  operation: documented.operation,
  isJsonApi: documented.isJsonApi,
}));

function credentials(access: Access): Record<string, string> {
  if (access === 'admin') {
    return { authorization: `Bearer ${adminApiKey}` };
  }
  if (access === 'merchant') {
    return { authorization: basicAuth(merchant.apiKey) };
  }
  return {};
}

function inject(route: RouteUnderTest, options: { headers?: Record<string, string>; payload?: string; contentType?: string } = {}): Promise<LightMyRequestResponse> {
  return context.app.inject({
    method: route.method,
    url: route.url,
    headers: { ...(options.payload !== undefined ? { 'content-type': options.contentType ?? 'application/json' } : {}), ...options.headers },
    ...(options.payload !== undefined ? { payload: options.payload } : {}),
  });
}

/** Required top-level fields of the JSON body schema (ajv checks `required` before unknown fields). */
function requiredFields(operation: Operation): string[] {
  const root = resolve(operation.requestBody?.content?.['application/json']?.schema);
  const branches = [root, ...(root?.anyOf ?? []), ...(root?.oneOf ?? []), ...(root?.allOf ?? [])].map(resolve);
  const objectBranch = branches.find((branch) => branch?.properties !== undefined || branch?.required !== undefined);
  return objectBranch?.required ?? [];
}

/** Any answer: Request-Id present; an error answer is the envelope repeating it; never a 5xx. */
function assertWellFormed(response: LightMyRequestResponse, label: string): void {
  assert.match(String(response.headers['request-id']), /^req_/, `${label}: Request-Id header`);
  assert.ok(response.statusCode < 500, `${label}: answered ${response.statusCode} ${response.body.slice(0, 300)}`);
  if (response.statusCode >= 400) {
    assertError(response, response.statusCode, json<{ errorCode: string }>(response).errorCode);
  }
}

test('the OpenAPI document lists the core routes (the enumeration below is not empty)', () => {
  const listed = new Set(routes.map((route) => `${route.method} ${route.path}`));
  for (const expected of [
    'POST /v1/customers',
    'GET /v1/customers',
    'GET /v1/customers/{customerId}',
    'POST /v1/customers/{customerId}',
    'POST /admin/v1/merchants',
    'POST /admin/v1/merchants/{merchantId}/live',
    'POST /admin/v1/merchants/{merchantId}/settings',
    'GET /admin/v1/merchants/{merchantId}/branding',
    'POST /admin/v1/merchants/{merchantId}/branding',
    'POST /admin/v1/merchants/{merchantId}/api_keys',
    'GET /admin/v1/merchants/{merchantId}/api_keys',
    'POST /admin/v1/merchants/{merchantId}/api_keys/{keyId}/revoke',
    'GET /admin/v1/merchants/{merchantId}/pii_keys',
    'POST /admin/v1/merchants/{merchantId}/pii_keys/rotate',
    'POST /admin/v1/customers/{customerId}/supported_payout_methods',
    'POST /v1/refunds',
    'GET /v1/refunds',
    'GET /v1/payout_pages',
    'POST /v1/payout_pages/{payoutPageId}/reissue',
    'GET /v1/payment_pages',
    'GET /v1/subscriptions',
    'GET /v1/refunds/{refundId}',
    'GET /admin/v1/reconciliation/payouts',
    'GET /admin/v1/payouts/awaiting-funding',
    'GET /admin/v1/retention',
    'POST /admin/v1/retention',
    'GET /admin/v1/audit_events',
    'GET /healthz',
    'GET /readyz',
  ]) {
    assert.ok(listed.has(expected), `${expected} is in the OpenAPI document`);
  }
  for (const route of routes) {
    if (route.path.startsWith('/v1/')) {
      assert.equal(route.access, 'merchant', `${route.method} ${route.path} is documented as needing the API key`);
    }
    if (route.path.startsWith('/admin/')) {
      assert.equal(route.access, 'admin', `${route.method} ${route.path} is documented as needing the admin token`);
    }
  }
});

for (const route of routes) {
  describe(`${route.method} ${route.path}`, () => {
    if (route.access === 'merchant') {
      test('without credentials, or with an unknown key → 401 envelope with WWW-Authenticate: Basic', async () => {
        const attempts: Array<Record<string, string>> = [{}, { authorization: basicAuth('sk_not_a_key') }, { authorization: `Basic ${Buffer.from(`${merchant.apiKey}:password`).toString('base64')}` }];
        for (const headers of attempts) {
          const response = await inject(route, { headers, ...(route.method === 'GET' ? {} : { payload: '{}' }) });
          assertError(response, 401, 'UNAUTHORIZED');
          assert.match(String(response.headers['www-authenticate']), /^Basic /);
        }
      });
    }

    if (route.access === 'admin') {
      test('without the admin bearer token (none, wrong, or a merchant key) → 401 envelope', async () => {
        const attempts: Array<Record<string, string>> = [{}, { authorization: 'Bearer wrong-admin-key-0123456789abcdef' }, { authorization: basicAuth(merchant.apiKey) }, { authorization: `Bearer ${merchant.apiKey}` }];
        for (const headers of attempts) {
          const response = await inject(route, { headers, ...(route.method === 'GET' ? {} : { payload: '{}' }) });
          assertError(response, 401, 'UNAUTHORIZED');
        }
      });
    }

    test('an authenticated call with made-up ids answers with Request-Id and, on failure, the error envelope (never a 5xx)', async () => {
      const response = await inject(route, { headers: credentials(route.access), ...(route.method === 'GET' || route.method === 'DELETE' ? {} : { payload: '{}' }) });
      if (route.isJsonApi) {
        assertWellFormed(response, `${route.method} ${route.url}`);
      } else {
        assert.match(String(response.headers['request-id']), /^req_/);
      }
    });

    if (route.method !== 'GET' && route.method !== 'DELETE' && route.isJsonApi) {
      test('an unknown body field → 400 WRONG_PARAMETER naming the field', async () => {
        const body: Record<string, unknown> = Object.fromEntries(requiredFields(route.operation).map((field) => [field, null]));
        body.fieldNobodyDefined = 1;
        const error = assertError(await inject(route, { headers: credentials(route.access), payload: JSON.stringify(body) }), 400, 'WRONG_PARAMETER');
        assert.match(error.errorMessage, /fieldNobodyDefined/, `${route.method} ${route.url}: ${error.errorMessage}`);
      });

      if (route.operation.requestBody?.required === false) {
        test('bodyless: no body, `{}`, and an empty body with any content type are the same request (documented optional)', async () => {
          const headers = credentials(route.access);
          const expected = await inject(route, { headers, payload: '{}' });
          assert.ok(![400, 415].includes(expected.statusCode), `{}: ${expected.statusCode} ${expected.body.slice(0, 200)}`);
          const forms: Array<[string, { payload?: string; contentType?: string; headers?: Record<string, string> }]> = [
            ['no body, no content type', {}],
            ['empty JSON body', { payload: '' }],
            ['empty text/plain body', { payload: '', contentType: 'text/plain' }],
            ['empty form body', { payload: '', contentType: 'application/x-www-form-urlencoded' }],
            ['empty octet-stream body', { payload: '', contentType: 'application/octet-stream' }],
          ];
          for (const [label, form] of forms) {
            const response = await inject(route, { ...form, headers: { ...headers, ...form.headers } });
            assert.equal(response.statusCode, expected.statusCode, `${label}: ${response.body.slice(0, 200)}`);
            assert.equal(json<{ errorCode?: string }>(response).errorCode, json<{ errorCode?: string }>(expected).errorCode, label);
          }
        });
      }

      test('malformed JSON → 400 WRONG_PARAMETER; a non-JSON body → 415 UNSUPPORTED_MEDIA_TYPE', async () => {
        assertError(await inject(route, { headers: credentials(route.access), payload: '{"unterminated": ' }), 400, 'WRONG_PARAMETER');
        assertError(await inject(route, { headers: credentials(route.access), payload: 'hello', contentType: 'text/plain' }), 415, 'UNSUPPORTED_MEDIA_TYPE');
      });
    }
  });
}

describe('requests that match no route or break the protocol', () => {
  test('a body over 1 MiB → 413 PAYLOAD_TOO_LARGE envelope (API and admin)', async () => {
    const big = JSON.stringify({ referenceId: 'big', signupAt: 1, firstName: 'x'.repeat(1024 * 1024) });
    assertError(await context.request({ method: 'POST', url: '/v1/customers?livemode=false', apiKey: merchant.apiKey, body: big }), 413, 'PAYLOAD_TOO_LARGE');
    assertError(
      await context.app.inject({ method: 'POST', url: '/admin/v1/merchants', headers: { ...credentials('admin'), 'content-type': 'application/json' }, payload: JSON.stringify({ name: 'x'.repeat(1024 * 1024 + 1), email: 'a@b.co' }) }),
      413,
      'PAYLOAD_TOO_LARGE',
    );
  });

  test('a body of exactly 1 MiB is not refused for its size', async () => {
    const prefix = '{"referenceId":"one-mib","signupAt":1,"firstName":"';
    const suffix = '"}';
    const body = `${prefix}${'x'.repeat(1024 * 1024 - prefix.length - suffix.length)}${suffix}`;
    assert.equal(Buffer.byteLength(body), 1024 * 1024);
    const error = assertError(await context.request({ method: 'POST', url: '/v1/customers?livemode=false', apiKey: merchant.apiKey, body }), 400, 'WRONG_PARAMETER');
    assert.match(error.errorMessage, /firstName/);
  });

  test('an unknown route → 404 NOT_FOUND envelope, with or without credentials', async () => {
    for (const [method, url, headers] of [
      ['GET', '/nope', {}],
      ['POST', '/v1/nope', credentials('merchant')],
      ['GET', '/v1/nope', {}],
      ['GET', '/admin/v1/nope', credentials('admin')],
      ['DELETE', '/v1/customers', credentials('merchant')],
      ['OPTIONS', '/v1/customers', {}],
      ['GET', '/v2/customers', {}],
    ] as const) {
      const response = await context.app.inject({ method, url, headers });
      assertError(response, 404, 'NOT_FOUND');
    }
  });

  test('a path parameter longer than any id, or an undecodable URL → envelope, not the router’s own body', async () => {
    assertError(await context.request({ method: 'GET', url: `/v1/customers/${'c'.repeat(500)}`, apiKey: merchant.apiKey }), 404, 'NOT_FOUND');
    assertError(await context.request({ method: 'GET', url: '/v1/customers/%ZZ', apiKey: merchant.apiKey }), 400, 'WRONG_PARAMETER');
  });

  test('success answers carry Request-Id too, and each request gets its own', async () => {
    const first = await context.app.inject({ method: 'GET', url: '/healthz' });
    const second = await context.app.inject({ method: 'GET', url: '/healthz' });
    assert.equal(first.statusCode, 200);
    assert.match(String(first.headers['request-id']), /^req_/);
    assert.notEqual(first.headers['request-id'], second.headers['request-id']);
  });

  test('a client-supplied Request-Id is not trusted as ours', async () => {
    const response = await context.app.inject({ method: 'GET', url: '/healthz', headers: { 'request-id': 'req_spoofed' } });
    assert.notEqual(response.headers['request-id'], 'req_spoofed');
  });

  test('malformed HTTP on a real socket → 400 envelope (not the framework’s client-error body)', async () => {
    await context.app.listen({ port: 0, host: '127.0.0.1' });
    const address = context.app.server.address();
    assert.ok(address && typeof address === 'object');
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(address.port, '127.0.0.1');
      let received = '';
      socket.on('data', (chunk) => {
        received += chunk.toString('utf8');
      });
      socket.on('error', reject);
      socket.on('close', () => resolve(received));
      socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header Without Colon\r\n\r\n');
    });
    assert.match(raw, /^HTTP\/1\.1 400 /);
    assert.match(raw, /request-id: req_/i);
    const body = JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4)) as { status: string; errorCode: string; requestId: string };
    assert.equal(body.status, 'FAILED');
    assert.equal(body.errorCode, 'WRONG_PARAMETER');
    assert.match(body.requestId, /^req_/);
  });
});

test('after exercising every route, no log line holds a credential', () => {
  const logs = context.logs.join('\n');
  assert.ok(context.logs.length > routes.length, 'requests were logged');
  const secret = merchant.apiKey.split('_').slice(2).join('_');
  for (const [label, value] of [
    ['the API key', merchant.apiKey],
    ['the API key secret', secret],
    ['the Basic credentials', Buffer.from(`${merchant.apiKey}:`).toString('base64')],
    ['the admin key', adminApiKey],
  ] as const) {
    assert.equal(logs.includes(value), false, `${label} reached the logs`);
  }
  assert.doesNotMatch(logs, /"authorization":"(Basic|Bearer)/i);
});
