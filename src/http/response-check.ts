import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifyInstance } from 'fastify';

export interface ResponseViolation {
  method: string;
  route: string;
  status: number;
  errors: string;
}

/**
 * A check for test builds (issue 17: the document tools can trust): every JSON answer is validated
 * against the response schema its route declares for that status — the schema the OpenAPI document
 * publishes — and each mismatch is reported to `onViolation`. The serializer writes what the schema
 * lists but does not check enums, patterns, bounds or which branch of a union an answer takes; this
 * does. Not installed in production (it parses every answer again).
 */
export function installResponseCheck(app: FastifyInstance, onViolation: (violation: ResponseViolation) => void): void {
  const { ajv, compiled } = checkerFor(Object.values(app.getSchemas()) as object[]);
  app.addHook('onSend', async (request, reply, payload) => {
    const responses = (request.routeOptions.schema as { response?: Record<string, unknown> } | undefined)?.response;
    const schema = responses?.[String(reply.statusCode)] ?? responses?.[`${String(reply.statusCode)[0]}xx`] ?? responses?.['default'];
    const contentType = String(reply.getHeader('content-type') ?? '');
    if (!schema || typeof schema !== 'object' || typeof payload !== 'string' || !contentType.startsWith('application/json')) {
      return payload;
    }
    const validate = compiled.get(schema) ?? ajv.compile(schema);
    compiled.set(schema, validate);
    if (!validate(JSON.parse(payload))) {
      onViolation({ method: request.method, route: request.routeOptions.url ?? request.url, status: reply.statusCode, errors: ajv.errorsText(validate.errors) });
    }
    return payload;
  });
}

interface Checker {
  shared: readonly object[];
  ajv: Ajv;
  compiled: WeakMap<object, ValidateFunction>;
}

/**
 * The previous app's validator and compiled schemas when this app shares the very same schema
 * objects (the test files of one process each build an app from the same modules, decision 0007:
 * compiling a route's response schema once per process instead of once per file); else new ones.
 */
let lastChecker: Checker | undefined;
function checkerFor(shared: readonly object[]): Checker {
  if (lastChecker && lastChecker.shared.length === shared.length && lastChecker.shared.every((schema, index) => schema === shared[index])) {
    return lastChecker;
  }
  // `addUsedSchema: false`: routes embed the same `$id`'d schemas (Customer, …) many times.
  const ajv = new Ajv({ allErrors: true, strict: false, addUsedSchema: false });
  (addFormatsModule as unknown as (instance: Ajv) => Ajv)(ajv);
  for (const schema of shared) {
    ajv.addSchema(schema);
  }
  lastChecker = { shared, ajv, compiled: new WeakMap() };
  return lastChecker;
}
