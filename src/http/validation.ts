import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import { AppError } from './errors.ts';

// ajv-formats is CommonJS with a default export.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

function createAjv(coerceTypes: boolean): Ajv {
  // removeAdditional stays off: an unknown field is an error (WRONG_PARAMETER), never silently dropped.
  // verbose: an error carries its schema, so a field's own wording (`x-rule`) can be used.
  const ajv = new Ajv({ coerceTypes, useDefaults: true, removeAdditional: false, allErrors: false, strict: false, verbose: true });
  addFormats(ajv);
  return ajv;
}

// Bodies are typed exactly ("100" is not an integer); query strings and params are text, so coerced.
// Each made on its first schema (a route's first request), not at every start: ajv-formats' formats
// and ajv's vocabularies cost a few tens of milliseconds per instance.
let strict: Ajv | undefined;
let coercing: Ajv | undefined;
const strictAjv = (): Ajv => (strict ??= createAjv(false));
const coercingAjv = (): Ajv => (coercing ??= createAjv('array' as unknown as boolean));

/** Beyond this a JSON number no longer holds an exact integer in JavaScript (2^53 − 1). */
export const largestExactInteger = Number.MAX_SAFE_INTEGER;

/** A lone UTF-16 surrogate (not part of a pair), or U+FFFE/U+FFFF (noncharacters). */
const malformedText = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]|[\uFFFE\uFFFF]/;

/** A field as the schema's errors name it: its path without the part, or the part itself for the root. */
function pathLabel(context: string, path: ReadonlyArray<string | number>): string {
  if (path.length === 0) {
    return context;
  }
  return path.map((part, index) => (typeof part === 'number' ? `[${part}]` : index === 0 ? part : `.${part}`)).join('');
}

/** One value still to look at, and how it was reached (its path is built only when it is refused). */
interface Visit {
  value: unknown;
  key: string | number | null;
  parent: Visit | null;
}

function pathOf(visit: Visit): Array<string | number> {
  const path: Array<string | number> = [];
  for (let current: Visit | null = visit; current !== null && current.key !== null; current = current.parent) {
    path.push(current.key);
  }
  return path.reverse();
}

/**
 * What no field accepts, whatever its schema: a number outside ±(2^53 − 1) (it would lose
 * precision, and as a date it is out of range), and text that is not well-formed Unicode (a lone
 * UTF-16 surrogate, which JSON's `\uD800` escapes can carry, or U+FFFE/U+FFFF): stored, it would
 * come back as U+FFFD or as invalid JSON. Returns the first offending field, or null. Iterative,
 * with no depth limit: a body of deeply nested arrays costs time in proportion to its size only.
 */
export function unrepresentableValue(context: string, root: unknown): AppError | null {
  const pending: Visit[] = [{ value: root, key: null, parent: null }];
  while (pending.length > 0) {
    const visit = pending.pop() as Visit;
    const { value } = visit;
    if (typeof value === 'number') {
      if (Math.abs(value) > largestExactInteger) {
        const field = pathLabel(context, pathOf(visit));
        return new AppError('WRONG_PARAMETER', `${field} must be between -${largestExactInteger} and ${largestExactInteger}`, { field });
      }
    } else if (typeof value === 'string') {
      if (malformedText.test(value)) {
        const field = pathLabel(context, pathOf(visit));
        return new AppError('WRONG_PARAMETER', `${field} must be well-formed Unicode text (no lone surrogates, U+FFFE or U+FFFF)`, { field });
      }
    } else if (Array.isArray(value)) {
      // Pushed in reverse so the first offending item is found first.
      for (let index = value.length - 1; index >= 0; index -= 1) {
        pending.push({ value: value[index], key: index, parent: visit });
      }
    } else if (value !== null && typeof value === 'object') {
      const entries = Object.entries(value);
      for (let index = entries.length - 1; index >= 0; index -= 1) {
        const [key, child] = entries[index] as [string, unknown];
        if (malformedText.test(key)) {
          const field = pathLabel(context, pathOf(visit));
          return new AppError('WRONG_PARAMETER', `${field} has a field name that is not well-formed Unicode text`, { field });
        }
        pending.push({ value: child, key, parent: visit });
      }
    }
  }
  return null;
}

/**
 * Compiles a route part's schema on the route's first request, not when the app is built: compiling
 * the schemas of every route took about a third of a second of each start, for routes most
 * processes never serve. A schema ajv refuses still fails every test of its route (every-route.test.ts).
 */
export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const ajvOf = httpPart === 'body' ? strictAjv : coercingAjv;
  let validate: ValidateFunction | undefined;
  const context = httpPart === 'body' ? 'body' : (httpPart ?? 'input');
  // The representability check runs first, on the input as sent (before coercion); like the
  // schema's errors it names a field by its path without the part (`amount`, `items[0].name`).
  return (data: unknown) => {
    const refused = unrepresentableValue(context, data);
    if (refused) {
      return { error: refused };
    }
    validate ??= ajvOf().compile(schema as object) as ValidateFunction;
    return validate(data) ? { value: data } : { error: Object.assign(new Error('validation failed'), { validation: validate.errors ?? [] }) };
  };
};

function fieldName(context: string, error: ErrorObject): string {
  const path = error.instancePath
    .split('/')
    .filter((part) => part !== '')
    .map((part) => (/^\d+$/.test(part) ? `[${part}]` : `.${part.replace(/~1/g, '/').replace(/~0/g, '~')}`))
    .join('')
    .replace(/^\./, '');
  const params = error.params as Record<string, unknown>;
  const child = (name: unknown) => (path === '' ? String(name) : `${path}.${String(name)}`);
  if (error.keyword === 'required') {
    return child(params.missingProperty);
  }
  if (error.keyword === 'additionalProperties') {
    return child(params.additionalProperty);
  }
  if (path === '') {
    return context === 'body' ? 'body' : context;
  }
  return path;
}

function count(limit: unknown, noun: string): string {
  return `${String(limit)} ${noun}${limit === 1 ? '' : 's'}`;
}

/**
 * The wording of a refused value. A schema may carry its own (`x-rule`, e.g. the contract's
 * "must be an integer between 1 and 100000000" for a payout amount), used for any of its keywords.
 */
function rule(error: ErrorObject): string {
  const own = (error.parentSchema as { 'x-rule'?: unknown } | undefined)?.['x-rule'];
  if (typeof own === 'string') {
    return own;
  }
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return 'is required';
    case 'additionalProperties':
      return 'is not a recognised field';
    case 'type':
      return `must be ${params.type === 'integer' ? 'an integer' : params.type === 'object' || params.type === 'array' ? `an ${String(params.type)}` : `a ${String(params.type)}`}`;
    case 'minLength':
      return `must be at least ${count(params.limit, 'character')}`;
    case 'maxLength':
      return `must be at most ${count(params.limit, 'character')}`;
    case 'minimum':
      return `must be at least ${String(params.limit)}`;
    case 'maximum':
      return `must be at most ${String(params.limit)}`;
    case 'enum':
      return `must be one of ${(params.allowedValues as unknown[]).map(String).join(', ')}`;
    case 'const':
      return `must be ${String(params.allowedValue)}`;
    case 'format':
      return `must be a valid ${String(params.format)}`;
    case 'pattern':
      return 'has an invalid format';
    case 'maxItems':
      return `must have at most ${count(params.limit, 'item')}`;
    case 'minItems':
      return `must have at least ${count(params.limit, 'item')}`;
    case 'uniqueItems':
      return 'must not contain duplicates';
    case 'maxProperties':
      return `must have at most ${String(params.limit)} entries`;
    default:
      return error.message ?? 'is invalid';
  }
}

function allowedValues(error: ErrorObject): unknown[] | null {
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'enum' && Array.isArray(params.allowedValues)) {
    return params.allowedValues;
  }
  if (error.keyword === 'const') {
    return [params.allowedValue];
  }
  return null;
}

/**
 * A union of literals (TypeBox `Union([Literal('CARD'), …])`) fails with one enum/const error per
 * branch; reporting only the first ("must be CARD") would be wrong, so the values are merged.
 */
function unionOfValuesRule(errors: ErrorObject[], first: ErrorObject): string | null {
  const union = errors.find((error) => (error.keyword === 'anyOf' || error.keyword === 'oneOf') && error.instancePath === first.instancePath);
  if (!union) {
    return null;
  }
  const branches = errors.filter((error) => error.instancePath === first.instancePath && error.keyword !== 'anyOf' && error.keyword !== 'oneOf');
  const values: unknown[] = [];
  for (const branch of branches) {
    const allowed = allowedValues(branch);
    if (!allowed) {
      return null;
    }
    values.push(...allowed);
  }
  return values.length > 0 ? `must be one of ${values.map(String).join(', ')}` : null;
}

/** Turns the first schema violation into `WRONG_PARAMETER` naming the field and the rule. */
export function validationError(context: string, errors: ErrorObject[]): AppError {
  // A union (anyOf) reports one error per branch; the most specific one names the real problem.
  const meaningful = errors.find((error) => error.keyword !== 'anyOf' && error.keyword !== 'oneOf') ?? errors[0];
  if (!meaningful) {
    return new AppError('WRONG_PARAMETER', `${context} is invalid`);
  }
  const field = fieldName(context, meaningful);
  return new AppError('WRONG_PARAMETER', `${field} ${unionOfValuesRule(errors, meaningful) ?? rule(meaningful)}`, { field });
}

const bodyValidators = new WeakMap<object, ValidateFunction>();

/**
 * Checks a body built outside an API route (a dashboard form turned into the API's body) exactly
 * as the API checks its own: the same representability rules, the same strict ajv, the same
 * WRONG_PARAMETER wording. Returns that error, or null when the body is valid.
 */
export function bodyError(schema: object, data: unknown): AppError | null {
  const refused = unrepresentableValue('body', data);
  if (refused) {
    return refused;
  }
  let validate = bodyValidators.get(schema);
  if (!validate) {
    validate = strictAjv().compile(schema) as ValidateFunction;
    bodyValidators.set(schema, validate);
  }
  return validate(data) ? null : validationError('body', validate.errors ?? []);
}
