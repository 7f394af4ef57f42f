/**
 * Turns the Paysail OpenAPI document into the SDK's generated module: one TypeScript type per
 * component schema, an `Operations` interface (path parameters, query, body and result of every `/v1`
 * operation) and the `operations` table the client sends requests from.
 *
 * Pure (document in, file text out) so the drift test can regenerate in memory and compare with what
 * is committed. Handles the JSON Schema subset that @fastify/swagger emits for our TypeBox schemas in an
 * OpenAPI 3.1 document: `$ref`, `type` (arrays too), `null`, `enum`, `const`, `anyOf`/`oneOf`,
 * `properties`/`required`, `additionalProperties`, `items`, and 3.0's `nullable`.
 */

export interface JsonSchema {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  nullable?: boolean;
  description?: string;
}

interface Parameter {
  name: string;
  in: 'query' | 'path' | 'header' | 'cookie';
  required?: boolean;
  description?: string;
  schema?: JsonSchema;
}

interface MediaType {
  schema?: JsonSchema;
}

interface Operation {
  summary?: string;
  description?: string;
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content?: Record<string, MediaType> };
  responses?: Record<string, { content?: Record<string, MediaType> }>;
}

export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Partial<Record<string, Operation>>>;
  components?: { schemas?: Record<string, JsonSchema> };
}

const httpMethods = ['get', 'post', 'put', 'patch', 'delete'] as const;

/** The path prefix the SDK covers: the merchant API (the admin API and operations routes are not part of it). */
export const sdkPathPrefix = '/v1/';

export interface OperationSummary {
  key: string;
  method: string;
  path: string;
}

/** Every SDK operation in the document, as `METHOD /v1/path/{param}` keys, in document order. */
export function listOperations(document: OpenApiDocument): OperationSummary[] {
  const result: OperationSummary[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    if (!path.startsWith(sdkPathPrefix)) {
      continue;
    }
    for (const method of httpMethods) {
      if (item[method]) {
        result.push({ key: `${method.toUpperCase()} ${path}`, method: method.toUpperCase(), path });
      }
    }
  }
  return result;
}

const identifier = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function propertyName(name: string): string {
  return identifier.test(name) ? name : JSON.stringify(name);
}

function docComment(text: string | undefined, indent: string): string {
  if (!text) {
    return '';
  }
  const lines = text.replaceAll('*/', '*\\/').split('\n');
  if (lines.length === 1) {
    return `${indent}/** ${lines[0]} */\n`;
  }
  return `${indent}/**\n${lines.map((line) => `${indent} * ${line}`.trimEnd()).join('\n')}\n${indent} */\n`;
}

function refName(ref: string): string {
  const prefix = '#/components/schemas/';
  if (!ref.startsWith(prefix)) {
    throw new Error(`Unsupported $ref ${ref}`);
  }
  return typeName(ref.slice(prefix.length));
}

function typeName(name: string): string {
  const cleaned = name.replace(/[^A-Za-z0-9_$]/g, '_');
  return /^[0-9]/.test(cleaned) ? `_${cleaned}` : cleaned;
}

function isSimple(type: string): boolean {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(type) || /^"[^"]*"$/.test(type);
}

/** The TypeScript type of a schema, laid out for `indent` (the indentation of the line it starts on). */
export function renderType(schema: JsonSchema | undefined, indent = ''): string {
  const base = renderBaseType(schema, indent);
  return schema?.nullable ? `${wrapUnion(base)} | null` : base;
}

function wrapUnion(type: string): string {
  return type.includes(' | ') && !type.startsWith('{') ? `(${type})` : type;
}

function renderBaseType(schema: JsonSchema | undefined, indent: string): string {
  if (!schema) {
    return 'unknown';
  }
  if (schema.$ref) {
    return refName(schema.$ref);
  }
  if (schema.const !== undefined) {
    return JSON.stringify(schema.const);
  }
  if (schema.enum) {
    return unique(schema.enum.map((value) => JSON.stringify(value))).join(' | ');
  }
  const variants = schema.anyOf ?? schema.oneOf;
  if (variants) {
    return unique(variants.map((variant) => wrapUnion(renderType(variant, indent)))).join(' | ');
  }
  if (schema.allOf) {
    return schema.allOf.map((part) => wrapUnion(renderType(part, indent))).join(' & ');
  }
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  if (types.length > 1) {
    return types.map((type) => renderBaseType({ ...schema, type }, indent)).join(' | ');
  }
  switch (types[0]) {
    case 'string':
      return 'string';
    case 'integer':
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array': {
      const item = renderType(schema.items, indent);
      return isSimple(item) ? `${item}[]` : `Array<${item}>`;
    }
    case 'object':
      return renderObject(schema, indent);
    default:
      return schema.properties ? renderObject(schema, indent) : 'unknown';
  }
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}

function renderObject(schema: JsonSchema, indent: string): string {
  const properties = Object.entries(schema.properties ?? {});
  const extra = schema.additionalProperties;
  if (properties.length === 0) {
    if (extra === false) {
      return 'Record<string, never>';
    }
    if (extra === undefined || extra === true) {
      return 'Record<string, unknown>';
    }
    return `Record<string, ${renderType(extra, indent)}>`;
  }
  const required = new Set(schema.required ?? []);
  const inner = `${indent}  `;
  const lines = properties.map(([name, property]) => {
    const optional = required.has(name) ? '' : '?';
    return `${docComment(property.description, inner)}${inner}${propertyName(name)}${optional}: ${renderType(property, inner)};\n`;
  });
  if (extra === true || (typeof extra === 'object' && extra !== null)) {
    const valueType = extra === true ? 'unknown' : renderType(extra, inner);
    lines.push(`${inner}[key: string]: ${valueType === 'unknown' ? 'unknown' : `${valueType} | undefined`};\n`);
  }
  return `{\n${lines.join('')}${indent}}`;
}

interface QueryNode {
  schema?: JsonSchema;
  description?: string;
  required: boolean;
  children: Map<string, QueryNode>;
}

/** Bracket names (`filters[fraudIssueDateRange][start]`) become nested objects; the client flattens them back. */
function queryTree(parameters: Parameter[]): QueryNode {
  const root: QueryNode = { required: false, children: new Map() };
  for (const parameter of parameters) {
    const segments = parameter.name.split(/\[|\]\[|\]$/).filter((segment) => segment !== '');
    let node = root;
    for (const segment of segments) {
      let child = node.children.get(segment);
      if (!child) {
        child = { required: false, children: new Map() };
        node.children.set(segment, child);
      }
      node = child;
    }
    node.schema = parameter.schema;
    node.description = parameter.description;
    node.required = parameter.required === true;
  }
  markRequired(root);
  return root;
}

function markRequired(node: QueryNode): boolean {
  let anyRequired = node.required;
  for (const child of node.children.values()) {
    anyRequired = markRequired(child) || anyRequired;
  }
  node.required = anyRequired;
  return anyRequired;
}

function renderQueryNode(node: QueryNode, indent: string): string {
  if (node.children.size === 0) {
    return renderType(node.schema, indent);
  }
  const inner = `${indent}  `;
  const lines = [...node.children].map(
    ([name, child]) => `${docComment(child.description, inner)}${inner}${propertyName(name)}${child.required ? '' : '?'}: ${renderQueryNode(child, inner)};\n`,
  );
  return `{\n${lines.join('')}${indent}}`;
}

function jsonSchemaOf(content: Record<string, MediaType> | undefined): JsonSchema | undefined {
  return content?.['application/json']?.schema;
}

/** `{status:'SUCCEEDED', data}` responses yield `data`; the entitlements query yields its whole body. */
function resultSchema(operation: Operation): { schema: JsonSchema | undefined; envelope: boolean } {
  const schema = jsonSchemaOf(operation.responses?.['200']?.content);
  const status = schema?.properties?.status;
  if (schema?.properties?.data && status?.enum?.length === 1 && status.enum[0] === 'SUCCEEDED') {
    return { schema: schema.properties.data, envelope: true };
  }
  return { schema, envelope: false };
}

/** An optional body's schema says "or nothing" with a `null` branch (OpenAPI 3.1); the client omits the body instead. */
function withoutNullBranch(schema: JsonSchema | undefined): JsonSchema | undefined {
  const branches = schema?.anyOf?.filter((branch) => branch.type !== 'null');
  if (!schema || !branches || branches.length === schema.anyOf?.length) {
    return schema;
  }
  return branches.length === 1 ? { ...branches[0], description: schema.description ?? branches[0]?.description } : { ...schema, anyOf: branches };
}

function bodyMode(operation: Operation): 'none' | 'optional' | 'required' {
  const schema = jsonSchemaOf(operation.requestBody?.content);
  if (!operation.requestBody || !schema) {
    return 'none';
  }
  return operation.requestBody.required === true && schema.nullable !== true ? 'required' : 'optional';
}

const header = `// Generated by packages/sdk/scripts/generate.ts from packages/sdk/openapi.json. Do not edit:
// change the server's schemas, then run \`npm run generate -w @paysail/sdk\` (a test fails until you do).
`;

/** The generated source files, by path relative to `packages/sdk/src/generated/`. */
export function renderGeneratedSources(document: OpenApiDocument): Map<string, string> {
  const schemas = Object.entries(document.components?.schemas ?? {});
  const out: string[] = [header, `\nexport const apiVersion = ${JSON.stringify(document.info.version)};\n`];

  for (const [name, schema] of schemas) {
    const type = renderType(schema);
    out.push(`\n${docComment(schema.description, '')}`);
    out.push(type.startsWith('{\n') ? `export interface ${typeName(name)} ${type}\n` : `export type ${typeName(name)} = ${type};\n`);
  }

  const operations = listOperations(document);
  out.push('\n/** Every `/v1` operation: path parameters, query (bracket names nested), body and result (`data`, or the whole body when the answer has no envelope). */\n');
  out.push('export interface Operations {\n');
  const table: string[] = [];
  for (const { key, method, path } of operations) {
    const operation = document.paths[path]?.[method.toLowerCase()] as Operation;
    const parameters = operation.parameters ?? [];
    const pathParameters = parameters.filter((parameter) => parameter.in === 'path');
    const queryParameters = parameters.filter((parameter) => parameter.in === 'query');
    const mode = bodyMode(operation);
    const result = resultSchema(operation);
    const indent = '    ';
    out.push(docComment(operation.summary, '  '));
    out.push(`  ${JSON.stringify(key)}: {\n`);
    const pathType =
      pathParameters.length === 0
        ? 'Record<string, never>'
        : `{ ${pathParameters.map((parameter) => `${propertyName(parameter.name)}: ${renderType(parameter.schema, indent)}`).join('; ')} }`;
    out.push(`${indent}pathParams: ${pathType};\n`);
    out.push(`${indent}query: ${queryParameters.length === 0 ? 'Record<string, never>' : renderQueryNode(queryTree(queryParameters), indent)};\n`);
    const bodySchema = jsonSchemaOf(operation.requestBody?.content);
    out.push(`${indent}body: ${mode === 'none' ? 'undefined' : renderBaseType(mode === 'optional' ? withoutNullBranch(bodySchema) : bodySchema, indent)};\n`);
    out.push(`${indent}result: ${renderType(result.schema, indent)};\n`);
    out.push('  };\n');
    table.push(
      `  ${JSON.stringify(key)}: { method: ${JSON.stringify(method)}, path: ${JSON.stringify(path)}, pathParams: ${JSON.stringify(pathParameters.map((parameter) => parameter.name))}, ` +
        `query: ${JSON.stringify(queryParameters.map((parameter) => parameter.name))}, body: ${JSON.stringify(mode)}, envelope: ${result.envelope} },\n`,
    );
  }
  out.push('}\n');
  out.push('\nexport type OperationKey = keyof Operations;\n');
  out.push(`
export interface OperationSpec {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** OpenAPI path template, \`{name}\` for path parameters. */
  path: string;
  pathParams: readonly string[];
  /** Query parameter names as sent (bracket notation kept). */
  query: readonly string[];
  body: 'none' | 'optional' | 'required';
  /** Whether a success answer is \`{status: 'SUCCEEDED', data}\` (all but the entitlements query). */
  envelope: boolean;
}
`);
  out.push('\nexport const operations = {\n');
  out.push(table.join(''));
  out.push('} as const satisfies Record<OperationKey, OperationSpec>;\n');

  return new Map([['openapi.ts', out.join('')]]);
}
