import assert from 'node:assert/strict';
import { test } from 'node:test';
import Fastify from 'fastify';
import { Type } from 'typebox';
import { installResponseCheck, type ResponseViolation } from '../../../src/http/response-check.ts';

// The contract check every test context installs (test/helpers/context.ts) must see what the
// serializer lets through: a value outside its enum, a string breaking its pattern.
test('the response check reports answers that do not match their documented schema, and only those', async () => {
  const app = Fastify();
  const violations: ResponseViolation[] = [];
  installResponseCheck(app, (violation) => violations.push(violation));
  const schema = { response: { 200: Type.Object({ status: Type.Unsafe<string>({ type: 'string', enum: ['OK', 'DONE'] }), code: Type.String({ pattern: '^[a-z]+$' }) }) } };
  app.get('/good', { schema }, async () => ({ status: 'OK', code: 'abc' }));
  app.get('/bad-enum', { schema }, async () => ({ status: 'NOPE', code: 'abc' }));
  app.get('/bad-pattern', { schema }, async () => ({ status: 'DONE', code: 'ABC' }));
  app.get('/undocumented', async () => ({ anything: true }));
  for (const url of ['/good', '/bad-enum', '/bad-pattern', '/undocumented']) {
    assert.equal((await app.inject({ method: 'GET', url })).statusCode, 200);
  }
  await app.close();
  assert.deepEqual(
    violations.map((violation) => violation.route),
    ['/bad-enum', '/bad-pattern'],
  );
  assert.match(violations[1]?.errors ?? '', /pattern/);
});
