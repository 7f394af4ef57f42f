import assert from 'node:assert/strict';
import { test } from 'node:test';
import { eq, sql } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { customers, jobs } from './schema/index.ts';
import { compileNamed, paramsOf } from './named-statements.ts';

const dialect = new PgDialect();

test('paramsOf collects the parameters drizzle renders, in its order: plain values, nested SQL, arrays, Param encoders, tables and columns without any', () => {
  const at = new Date('2026-01-02T03:04:05.678Z');
  const inner = sql`select ${customers.id} from ${customers} where ${eq(customers.createdAt, at)} and ${customers.merchantId} in ${['a', 'b', 'c']}`;
  const query = sql`with x as (${inner}) select ${1}::int, ${null}, ${true}, ${{ json: [1, 2] }}::jsonb, ${sql`${'nested'} || ${sql.raw("'raw'")}`} from x where ${jobs.queue} = ${'q'}`;
  const rendered = dialect.sqlToQuery(query);
  assert.deepEqual(paramsOf(query), rendered.params);
  assert.equal(rendered.params.length, 10);
});

test('paramsOf leaves to drizzle what it does not follow: placeholders and inlined parameters', () => {
  assert.equal(paramsOf(sql`select ${sql.placeholder('id')}`), undefined);
  assert.equal(paramsOf(sql`select ${1}`.inlineParams()), undefined);
});

test('compileNamed renders a name until three renders agree with the walk, then reuses the text with fresh parameters; a name that disagrees stays rendered', () => {
  const statement = (id: string, at: Date) => sql`select * from ${customers} where ${customers.id} = ${id} and ${customers.createdAt} > ${at}`;
  const name = `test_named_${Date.now()}`;
  for (let index = 0; index < 5; index += 1) {
    const at = new Date(1_700_000_000_000 + index);
    const { sql: text, params } = compileNamed(name, statement(`cus_${index}`, at));
    const rendered = dialect.sqlToQuery(statement(`cus_${index}`, at));
    assert.deepEqual({ text, params }, { text: rendered.sql, params: rendered.params });
    assert.equal(params[0], `cus_${index}`, 'the parameters are this call\'s, not the first render\'s');
  }
  // One name, another text (a caller's bug that node-postgres refuses on a connection): never reused.
  const shifting = `test_shifting_${Date.now()}`;
  for (let index = 0; index < 5; index += 1) {
    const query = index % 2 === 0 ? sql`select ${index}` : sql`select ${index}, ${'x'}`;
    const { sql: text, params } = compileNamed(shifting, query);
    assert.deepEqual({ text, params }, { text: dialect.sqlToQuery(query).sql, params: dialect.sqlToQuery(query).params });
  }
});
