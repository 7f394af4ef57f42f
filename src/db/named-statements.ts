import { Column, entityKind, is, Name, Param, Placeholder, SQL, StringChunk, Table, View } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';

const dialect = new PgDialect();

/** A `Param`'s driver value (its encoder's), or the parameters of the SQL it maps to; false when that SQL is not followed. */
function pushParam(chunk: Param, into: unknown[]): boolean {
  const mapped: unknown = chunk.value === null ? null : chunk.encoder.mapToDriverValue(chunk.value);
  if (is(mapped, SQL)) {
    return paramsOf(mapped, into) !== undefined;
  }
  into.push(mapped);
  return true;
}

/**
 * The parameters of `query` in the order drizzle's `sqlToQuery` numbers them, without rendering its
 * text; undefined when a chunk is of a kind this walk does not follow (drizzle renders it then). It
 * follows drizzle 0.45's `SQL.buildQueryFromSourceParams` for the chunks our raw statements are made
 * of: text, nested SQL and arrays, names, tables, columns, views (no parameter), `Param` (its
 * encoder's driver value) and plain values (one parameter each).
 */
export function paramsOf(query: SQL, into: unknown[] = []): unknown[] | undefined {
  if ((query as unknown as { shouldInlineParams: boolean }).shouldInlineParams) {
    return undefined;
  }
  for (const chunk of query.queryChunks as unknown[]) {
    if (chunk === undefined) {
      continue;
    }
    if (Array.isArray(chunk)) {
      const inner = paramsOf(new SQL(chunk as SQL['queryChunks']), into);
      if (!inner) {
        return undefined;
      }
      continue;
    }
    // The three kinds a statement is mostly made of, by `instanceof` first: drizzle's `is` (below)
    // answers the same for them but walks the prototype chain for every kind that does not match.
    if (chunk instanceof StringChunk) {
      continue;
    }
    if (chunk instanceof SQL) {
      if (!paramsOf(chunk, into)) {
        return undefined;
      }
      continue;
    }
    if (chunk instanceof Param && !is(chunk.value, Placeholder)) {
      if (!pushParam(chunk, into)) {
        return undefined;
      }
      continue;
    }
    if (typeof chunk !== 'object' || chunk === null || !(entityKind in (chunk.constructor as object))) {
      // A plain value (string, number, boolean, null, Date, a JSON object): one parameter as is.
      into.push(chunk);
      continue;
    }
    if (is(chunk, StringChunk) || is(chunk, Name) || is(chunk, Table) || is(chunk, Column) || is(chunk, View)) {
      continue;
    }
    if (is(chunk, SQL)) {
      if (!paramsOf(chunk, into)) {
        return undefined;
      }
      continue;
    }
    if (is(chunk, Param) && !is(chunk.value, Placeholder)) {
      if (!pushParam(chunk, into)) {
        return undefined;
      }
      continue;
    }
    // Placeholders, aliases, subqueries, enums, other wrappers: rendered by drizzle.
    return undefined;
  }
  return into;
}

function sameParams(a: readonly unknown[], b: readonly unknown[]): boolean {
  if (a.length !== b.length) {
    return false;
  }
  return a.every((value, index) => {
    const other = b[index];
    if (value === other) {
      return true;
    }
    return value instanceof Date && other instanceof Date ? value.getTime() === other.getTime() : JSON.stringify(value) === JSON.stringify(other);
  });
}

/** Renders checked against drizzle before the text is reused for a name. */
const checksBeforeReuse = 3;
/** Per statement name: its text and how many renders agreed with the walk; null: always rendered. */
const texts = new Map<string, { text: string; agreed: number } | null>();

/**
 * `{ sql, params }` of a named statement (one name, one text; only its parameters change): after the
 * first renders of a name agreed with `paramsOf` (same text, same parameters), the text is reused and
 * only the parameters are collected, which saves drizzle's rendering of a long statement on every
 * request (a refund's is 4 KB with 34 parameters). A name whose render ever disagrees is always
 * rendered from then on.
 */
export function compileNamed(name: string, query: SQL): { sql: string; params: unknown[] } {
  const known = texts.get(name);
  if (known && known.agreed >= checksBeforeReuse) {
    const params = paramsOf(query);
    if (params) {
      return { sql: known.text, params };
    }
    texts.set(name, null);
    return dialect.sqlToQuery(query);
  }
  const rendered = dialect.sqlToQuery(query);
  if (known !== null) {
    const params = paramsOf(query);
    const agrees = params !== undefined && (known === undefined || known.text === rendered.sql) && sameParams(params, rendered.params);
    texts.set(name, agrees ? { text: rendered.sql, agreed: (known?.agreed ?? 0) + 1 } : null);
  }
  return rendered;
}
