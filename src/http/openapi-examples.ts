import fs from 'node:fs';
import path from 'node:path';
import { packageRoot } from '../package-root.ts';

/**
 * One recorded request and answer per operation (`npm run docs:openapi-examples` walks every route
 * in sandbox and writes openapi-examples.json beside this file), shown in the served document as the
 * operation's parameter, request body and response examples. test/docs/openapi-examples.test.ts
 * checks that every operation has them and that they match the schemas.
 */
export interface OperationExample {
  /** Path and query parameters of the recorded request, by name. */
  parameters: Record<string, string>;
  requestBody?: unknown;
  response: { status: string; body: unknown };
}

// Read from src/ (not compiled), so the compiled server in dist/ shows the same examples.
const examplesFile = path.join(packageRoot, 'src', 'http', 'openapi-examples.json');

/** The recorded examples by operationId (none before the first recording). */
export function loadOperationExamples(): Record<string, OperationExample> {
  if (!fs.existsSync(examplesFile)) {
    return {};
  }
  return JSON.parse(fs.readFileSync(examplesFile, 'utf8')) as Record<string, OperationExample>;
}

interface OperationLike {
  operationId?: string;
  parameters?: Array<{ name?: string; in?: string; example?: unknown; schema?: { type?: unknown } }>;
  requestBody?: { content?: Record<string, { example?: unknown }> };
  responses?: Record<string, { content?: Record<string, { example?: unknown }> }>;
}

/** A recorded query value as its parameter's type (`livemode=false` is the boolean false). */
function typedValue(value: string, type: unknown): unknown {
  if (type === 'boolean' && (value === 'true' || value === 'false')) {
    return value === 'true';
  }
  if ((type === 'integer' || type === 'number') && value.trim() !== '' && Number.isFinite(Number(value))) {
    return Number(value);
  }
  return value;
}

/** Puts each operation's recorded example on its parameters, body and answer (mutates `paths`). */
export function addOperationExamples(paths: Record<string, Record<string, OperationLike>>, examples: Record<string, OperationExample>): void {
  for (const item of Object.values(paths)) {
    for (const operation of Object.values(item)) {
      const example = operation.operationId ? examples[operation.operationId] : undefined;
      if (!example) {
        continue;
      }
      for (const parameter of operation.parameters ?? []) {
        const value = parameter.name === undefined ? undefined : example.parameters[parameter.name];
        if (value !== undefined && (parameter.in === 'path' || parameter.in === 'query')) {
          parameter.example = typedValue(value, parameter.schema?.type);
        }
      }
      const body = operation.requestBody?.content?.['application/json'];
      if (body && example.requestBody !== undefined) {
        body.example = example.requestBody;
      }
      const answer = operation.responses?.[example.response.status]?.content?.['application/json'];
      if (answer) {
        answer.example = example.response.body;
      }
    }
  }
}
