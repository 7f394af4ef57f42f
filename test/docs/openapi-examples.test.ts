import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { createTestContext, json } from '../helpers/context.ts';

/**
 * Every operation of the served document shows a real request and answer (recorded by
 * `npm run docs:openapi-examples`), and each example matches the schema it illustrates — checked
 * here with ajv's JSON Schema 2020-12 validator, the dialect of OpenAPI 3.1.
 */

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

interface Media {
  schema?: unknown;
  example?: unknown;
}
interface Operation {
  operationId?: string;
  parameters?: Array<{ name?: string; in?: string; required?: boolean; example?: unknown; schema?: unknown; $ref?: string }>;
  requestBody?: { required?: boolean; content?: Record<string, Media> };
  responses?: Record<string, { content?: Record<string, Media> }>;
}

const context = await createTestContext();
after(async () => context.close());
const document = json<{ paths: Record<string, Record<string, Operation>>; components: Record<string, unknown> }>(await context.app.inject({ method: 'GET', url: '/openapi.json' }));

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema({ $id: 'paysail-openapi.json', components: document.components });
function check(schema: unknown, value: unknown, label: string): void {
  const validate = ajv.compile(JSON.parse(JSON.stringify(schema ?? {}).replaceAll('"#/components/', '"paysail-openapi.json#/components/')) as object);
  assert.ok(validate(value), `${label}: ${JSON.stringify(validate.errors?.slice(0, 3))} in ${JSON.stringify(value).slice(0, 300)} (re-record: npm run docs:openapi-examples)`);
}

const operations = Object.entries(document.paths).flatMap(([path, item]) => Object.entries(item).map(([method, operation]) => ({ label: `${method.toUpperCase()} ${path} (${operation.operationId})`, operation })));

test('every operation has an example answer (2xx) that matches its schema', () => {
  assert.ok(operations.length > 60, `${operations.length} operations`);
  for (const { label, operation } of operations) {
    const answers = Object.entries(operation.responses ?? {}).filter(([status, answer]) => status.startsWith('2') && answer.content?.['application/json']?.example !== undefined);
    assert.equal(answers.length, 1, `${label}: one example answer (record it: npm run docs:openapi-examples)`);
    const [, answer] = answers[0] ?? [];
    check(answer?.content?.['application/json']?.schema, answer?.content?.['application/json']?.example, `${label} answer`);
  }
});

test('every operation has an example request: its required body, and a value for each path parameter, each matching its schema', () => {
  for (const { label, operation } of operations) {
    const body = operation.requestBody?.content?.['application/json'];
    if (operation.requestBody?.required === true) {
      assert.notEqual(body?.example, undefined, `${label}: body example`);
    }
    if (body?.example !== undefined) {
      check(body.schema, body.example, `${label} body`);
    }
    for (const parameter of operation.parameters ?? []) {
      if (parameter.in === 'path') {
        assert.notEqual(parameter.example, undefined, `${label}: example ${parameter.name}`);
      }
      if (parameter.example !== undefined) {
        check(parameter.schema, parameter.example, `${label} ${parameter.name}`);
      }
    }
  }
});

test('an example is refused when it does not match (the check can fail)', () => {
  const payout = document.paths['/v1/payout_pages']?.post?.requestBody?.content?.['application/json'];
  assert.ok(payout?.example);
  assert.throws(() => check(payout.schema, { ...(payout.example as object), amount: 0 }, 'amount 0'), /minimum/);
});
