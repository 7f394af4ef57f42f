import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { idPrefixes, type IdKind } from '../../src/crypto/ids.ts';
import escapeStringRegexp from 'escape-string-regexp';

/**
 * The built app's OpenAPI document as data, for harnesses that must cover every operation without
 * listing them (the fuzzer, the isolation matrix): the operations, their access, their parameters,
 * which id kind each path parameter takes, and validators for the documented responses.
 */

// ajv-formats is CommonJS with a default export.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

export interface Schema {
  $ref?: string;
  type?: string | string[];
  required?: string[];
  properties?: Record<string, Schema>;
  additionalProperties?: boolean | Schema;
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  enum?: unknown[];
  const?: unknown;
  pattern?: string;
  format?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number | boolean;
  exclusiveMaximum?: number | boolean;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  nullable?: boolean;
  description?: string;
}

export interface Parameter {
  in: string;
  name: string;
  required?: boolean;
  schema?: Schema;
}

export interface Operation {
  tags?: string[];
  security?: Array<Record<string, string[]>>;
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content?: Record<string, { schema?: Schema }> };
  responses?: Record<string, { content?: Record<string, { schema?: Schema }> }>;
}

export interface OpenApiDocument {
  security?: Array<Record<string, string[]>>;
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, Schema> };
}

export type Access = 'public' | 'merchant' | 'admin';
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface DocumentedOperation {
  method: HttpMethod;
  /** The path template, e.g. `/v1/customers/{customerId}`. */
  path: string;
  operation: Operation;
  access: Access;
  isJsonApi: boolean;
  pathParameters: Parameter[];
  queryParameters: Parameter[];
  /** The JSON body schema, when the operation takes one. */
  bodySchema: Schema | undefined;
  /** Matches a concrete URL path (no query) of this operation. */
  matcher: RegExp;
}

export const httpMethods = ['get', 'post', 'put', 'patch', 'delete'] as const;

/** Which id kind a path segment before `{param}` names. */
export const kindBySegment: Record<string, IdKind> = {
  customers: 'customer',
  merchants: 'merchant',
  api_keys: 'apiKey',
  payout_pages: 'payoutPage',
  payment_pages: 'paymentPage',
  fraud_reports: 'payment',
  events: 'event',
  webhook_endpoints: 'webhookEndpoint',
  webhook_deliveries: 'webhookDelivery',
  subscriptions: 'subscription',
  invoices: 'invoice',
  entitlements: 'entitlement',
  disputes: 'dispute',
  refunds: 'refund',
};

/** Which id kind a parameter (path or query filter) takes, by its name. */
export const kindByParam: Record<string, IdKind> = {
  customerId: 'customer',
  merchantId: 'merchant',
  keyId: 'apiKey',
  payoutPageId: 'payoutPage',
  pageId: 'paymentPage',
  paymentId: 'payment',
  checkoutPaymentId: 'payment',
  'filters[checkoutPaymentId]': 'payment',
  eventId: 'event',
  endpointId: 'webhookEndpoint',
  webhookEndpointId: 'webhookEndpoint',
  deliveryId: 'webhookDelivery',
  subscriptionId: 'subscription',
  invoiceId: 'invoice',
  entitlementId: 'entitlement',
  refundId: 'refund',
  paymentPageId: 'paymentPage',
  relatedId: 'payoutPage',
  disputeId: 'dispute',
};

export function resolveSchema(document: OpenApiDocument, schema: Schema | undefined): Schema | undefined {
  if (schema?.$ref) {
    const name = schema.$ref.split('/').pop()?.replace(/#$/, '') ?? '';
    return resolveSchema(document, document.components?.schemas?.[name]);
  }
  return schema;
}

/** The id kind of a path parameter: by its name, else by the collection segment before it. */
export function idKindOf(path: string, name: string): IdKind | undefined {
  if (kindByParam[name]) {
    return kindByParam[name];
  }
  const segments = path.split('/');
  return kindBySegment[segments[segments.indexOf(`{${name}}`) - 1] ?? ''];
}

function fits(value: string, schema: Schema | undefined): boolean {
  if (!schema) {
    return true;
  }
  if (schema.maxLength !== undefined && value.length > schema.maxLength) {
    return false;
  }
  if (schema.minLength !== undefined && value.length < schema.minLength) {
    return false;
  }
  return schema.pattern === undefined || new RegExp(schema.pattern, 'u').test(value);
}

/** A well-formed id nobody has, accepted by the parameter's schema. */
export function fakeId(path: string, name: string, schema: Schema | undefined): string {
  const kind = idKindOf(path, name);
  const candidates = [...(kind ? [idPrefixes[kind]] : []), ...Object.values(idPrefixes)].map((prefix) => `${prefix}${'0'.repeat(36)}`);
  return candidates.find((candidate) => fits(candidate, schema)) ?? '0'.repeat(Math.max(1, schema?.minLength ?? 1));
}

function accessOf(document: OpenApiDocument, operation: Operation): Access {
  const security = operation.security ?? document.security ?? [];
  if (security.length === 0 || security.every((requirement) => Object.keys(requirement).length === 0)) {
    return 'public';
  }
  return security.some((requirement) => 'adminBearer' in requirement) ? 'admin' : 'merchant';
}

function isJsonApi(operation: Operation): boolean {
  const requestTypes = Object.keys(operation.requestBody?.content ?? {});
  const responseTypes = Object.values(operation.responses ?? {}).flatMap((response) => Object.keys(response.content ?? {}));
  const htmlOnly = responseTypes.length > 0 && responseTypes.every((type) => type.startsWith('text/html'));
  const formOnly = requestTypes.length > 0 && requestTypes.every((type) => !type.includes('json'));
  return !htmlOnly && !formOnly;
}

/** Every operation of the document, in document order. */
export function listOperations(document: OpenApiDocument): DocumentedOperation[] {
  const operations: DocumentedOperation[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of httpMethods) {
      const operation = item[method];
      if (!operation) {
        continue;
      }
      const parameters = operation.parameters ?? [];
      const pattern = path
        .split(/(\{[^}]+\})/)
        .map((part) => (part.startsWith('{') ? '([^/]+)' : escapeStringRegexp(part)))
        .join('');
      operations.push({
        method: method.toUpperCase() as HttpMethod,
        path,
        operation,
        access: accessOf(document, operation),
        isJsonApi: isJsonApi(operation),
        pathParameters: parameters.filter((parameter) => parameter.in === 'path'),
        queryParameters: parameters.filter((parameter) => parameter.in === 'query'),
        bodySchema: operation.requestBody?.content?.['application/json']?.schema,
        matcher: new RegExp(`^${pattern}/?$`),
      });
    }
  }
  return operations;
}

/** Finds the documented operation a concrete request lands on (static paths win over templated ones, as in the router). */
export function matchOperation(operations: readonly DocumentedOperation[], method: string, urlPath: string): DocumentedOperation | undefined {
  const candidates = operations.filter((candidate) => candidate.method === method.toUpperCase() && candidate.matcher.test(urlPath));
  return candidates.sort((a, b) => (a.path.match(/\{/g)?.length ?? 0) - (b.path.match(/\{/g)?.length ?? 0))[0];
}

export interface ResponseCheck {
  /** Whether the operation documents this status. */
  documented: boolean;
  /** Schema errors (empty when the body matches). */
  errors: string[];
}

/**
 * Validates answers against the document with a fresh ajv (not the app's own compiler, so a bug
 * there cannot hide itself): each operation's documented schema for the status, the error envelope
 * for statuses the operation does not document.
 */
export function createResponseValidator(document: OpenApiDocument): (operation: DocumentedOperation | undefined, status: number, body: unknown) => ResponseCheck {
  const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: true });
  addFormats(ajv);
  // The components are one schema, compiled once; the operations' refs point into it.
  const documentId = 'paysail-openapi.json';
  ajv.addSchema({ $id: documentId, components: document.components ?? {} });
  const cache = new WeakMap<object, ValidateFunction>();
  const compile = (schema: Schema): ValidateFunction => {
    let validate = cache.get(schema);
    if (!validate) {
      validate = ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', `"${documentId}#/components/`)) as object);
      cache.set(schema, validate);
    }
    return validate;
  };
  const envelope = resolveSchema(document, { $ref: '#/components/schemas/ErrorEnvelope' });
  return (operation, status, body) => {
    const documented = operation?.operation.responses?.[String(status)]?.content?.['application/json']?.schema;
    const schema = documented ?? (status >= 400 ? envelope : undefined);
    if (!schema) {
      return { documented: false, errors: [`no schema for status ${status}`] };
    }
    const validate = compile(schema.$ref ? (resolveSchema(document, schema) ?? schema) : schema);
    const valid = validate(body);
    return {
      documented: documented !== undefined,
      errors: valid ? [] : (validate.errors ?? []).slice(0, 5).map((error) => `${error.instancePath || '/'} ${error.message ?? error.keyword} ${JSON.stringify(error.params)}`),
    };
  };
}
