import { adminApiKey, basicAuth, type TestMerchant } from '../helpers/context.ts';
import { fakeId, resolveSchema, type DocumentedOperation, type OpenApiDocument } from './openapi.ts';
import type { BodyMutation, Credentials, Plan, Pools } from './fuzz-arbitraries.ts';

// The fuzzer's requests (fuzz.ts): a drawn plan (fuzz-arbitraries.ts) turned into the method, URL,
// headers and body sent to the app, with its body mutations applied.

export interface Actors {
  merchant: TestMerchant;
  foreign: TestMerchant;
  pools: Pools;
}

/** Every JSON path (as keys) of a value, objects and arrays, root excluded. */
function pathsOf(value: unknown, prefix: Array<string | number> = [], out: Array<Array<string | number>> = []): Array<Array<string | number>> {
  if (value !== null && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      const path = [...prefix, Array.isArray(value) ? Number(key) : key];
      out.push(path);
      pathsOf(child, path, out);
    }
  }
  return out;
}

function setAt(root: unknown, path: Array<string | number>, value: unknown): unknown {
  if (path.length === 0) {
    return value;
  }
  const copy = (Array.isArray(root) ? [...(root as unknown[])] : { ...(root as Record<string, unknown>) }) as Record<string | number, unknown>;
  const [head, ...rest] = path as [string | number, ...Array<string | number>];
  copy[head] = setAt(copy[head], rest, value);
  return copy;
}

function deleteAt(root: unknown, path: Array<string | number>): unknown {
  if (root === null || typeof root !== 'object') {
    return root;
  }
  if (path.length === 1) {
    if (Array.isArray(root)) {
      return root.filter((_value, index) => index !== path[0]);
    }
    const copy = { ...(root as Record<string, unknown>) };
    delete copy[String(path[0])];
    return copy;
  }
  const [head, ...rest] = path as [string | number, ...Array<string | number>];
  return setAt(root, [head], deleteAt((root as Record<string | number, unknown>)[head], rest));
}

const placeholder = '"@@FUZZ@@"';

/** Serialises a body with one mutation applied (textual where JSON.stringify cannot express it). */
function mutateBody(body: unknown, mutation: BodyMutation): string {
  const base = body !== null && typeof body === 'object' ? body : {};
  const paths = pathsOf(base);
  const chosen = paths.length > 0 ? paths[('pick' in mutation ? mutation.pick : 0) % paths.length] : undefined;
  const target = chosen ?? ['fuzzField'];
  switch (mutation.kind) {
    case 'wrongType':
      return JSON.stringify(setAt(base, target, mutation.value));
    case 'missingRequired':
      return JSON.stringify(chosen ? deleteAt(base, chosen) : base);
    case 'unknownKey':
      return JSON.stringify({ ...base, [mutation.key]: 1 });
    case 'prototypeKey': {
      const injected = mutation.key === 'constructor' ? '{"prototype":{"polluted":true}}' : '{"polluted":true,"isAdmin":true}';
      const text = JSON.stringify(mutation.nested && chosen ? setAt(base, target, JSON.parse(placeholder)) : { ...base, fuzzSlot: JSON.parse(placeholder) });
      const slot = mutation.nested && chosen ? injected.replace('{', `{"${mutation.key}":${injected},`) : injected;
      return mutation.nested && chosen ? text.replace(placeholder, slot) : text.replace(`"fuzzSlot":${placeholder}`, `"${mutation.key}":${injected}`);
    }
    case 'hugeString':
      return JSON.stringify(setAt(base, target, 'x'.repeat(mutation.size)));
    case 'nastyString':
      return JSON.stringify(setAt(base, target, mutation.value));
    case 'rawNumber':
      return JSON.stringify(setAt(base, target, JSON.parse(placeholder))).replace(placeholder, mutation.raw);
    case 'deepNesting': {
      const nested = `${'['.repeat(mutation.depth)}${']'.repeat(mutation.depth)}`;
      return mutation.atRoot ? nested : JSON.stringify(setAt(base, target, JSON.parse(placeholder))).replace(placeholder, nested);
    }
    case 'bigArray':
      return JSON.stringify(setAt(base, target, Array.from({ length: mutation.length }, (_value, index) => index)));
    case 'duplicateKey': {
      const text = JSON.stringify(base);
      const key = chosen && typeof chosen.at(-1) === 'string' && chosen.length === 1 ? String(chosen[0]) : 'fuzzField';
      return text === '{}' ? `{"${key}":1,"${key}":${JSON.stringify(mutation.value)}}` : `{"${key}":${JSON.stringify(mutation.value)},${text.slice(1)}`;
    }
  }
}

export interface BuiltRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string;
  /** Input the server must refuse without writing (checked on a sample). */
  hostile: boolean;
  operation: DocumentedOperation;
}

function queryString(query: Record<string, unknown>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined) {
      search.append(name, typeof value === 'string' ? value : JSON.stringify(value));
    }
  }
  const text = search.toString();
  return text === '' ? '' : `?${text}`;
}

function fillPath(operation: DocumentedOperation, values: Record<string, string>): string {
  return operation.path.replace(/\{([^}]+)\}/g, (_match, name: string) => encodeURIComponent(values[name] ?? 'missing'));
}

function authHeaders(operation: DocumentedOperation, credentials: Credentials, actors: Actors): Record<string, string> {
  const own = operation.access === 'admin' ? `Bearer ${adminApiKey}` : operation.access === 'merchant' ? basicAuth(actors.merchant.apiKey) : undefined;
  switch (credentials) {
    case 'own':
      return own ? { authorization: own } : {};
    case 'none':
      return {};
    case 'badKey':
      return { authorization: operation.access === 'admin' ? 'Bearer adm_wrong_0123456789abcdefghijklmn' : basicAuth('sk_fuzz_0123456789abcdefghij') };
    case 'foreignMerchant':
      return { authorization: basicAuth(actors.foreign.apiKey) };
    case 'adminOnV1':
      return { authorization: `Bearer ${adminApiKey}` };
    case 'merchantOnAdmin':
      return { authorization: basicAuth(actors.merchant.apiKey) };
    case 'garbage':
      return { authorization: 'Basic !!!not-base64!!!' };
  }
}

export function buildRequest(document: OpenApiDocument, operations: DocumentedOperation[], plan: Plan, actors: Actors): BuiltRequest {
  const operation = operations[plan.operation] as DocumentedOperation;
  const json = { 'content-type': 'application/json' };
  const withBody = (text: string | undefined) => (text === undefined ? {} : { payload: text });
  const bodyText = (body: unknown) => (operation.bodySchema ? JSON.stringify(body ?? {}) : undefined);
  switch (plan.kind) {
    case 'valid': {
      const payload = bodyText(plan.body);
      return {
        method: operation.method,
        url: fillPath(operation, plan.path) + queryString(plan.query),
        headers: { ...authHeaders(operation, plan.credentials, actors), ...(payload !== undefined ? json : {}), ...(plan.idempotencyKey ? { 'idempotency-key': plan.idempotencyKey } : {}) },
        ...withBody(payload),
        hostile: false,
        operation,
      };
    }
    case 'mutatedBody':
      return {
        method: operation.method,
        url: fillPath(operation, plan.path) + queryString(plan.query),
        headers: { ...authHeaders(operation, plan.credentials, actors), ...json },
        payload: mutateBody(plan.body, plan.mutation),
        // A mutation may still be a valid body (a wrong type where any is allowed); the answer decides.
        hostile: true,
        operation,
      };
    case 'mutatedQuery': {
      const base = queryString(plan.query);
      let url = fillPath(operation, plan.path);
      if (plan.mutation.kind === 'parameter') {
        const names = operation.queryParameters.map((parameter) => parameter.name);
        const name = names.length > 0 ? (names[plan.mutation.value.length % names.length] as string) : 'fuzz';
        url += queryString({ ...plan.query, [name]: plan.mutation.value });
      } else if (plan.mutation.kind === 'livemode') {
        url += `?livemode=${plan.mutation.value}`;
      } else {
        url += `${base === '' ? '?' : `${base}&`}${plan.mutation.value}`;
      }
      const payload = bodyText(plan.body);
      return { method: operation.method, url, headers: { ...authHeaders(operation, 'own', actors), ...(payload !== undefined ? json : {}) }, ...withBody(payload), hostile: true, operation };
    }
    case 'mutatedPath': {
      const values: Record<string, string> = {};
      const names = operation.pathParameters.map((parameter) => parameter.name);
      for (const name of names) {
        values[name] = fakeId(operation.path, name, resolveSchema(document, operation.pathParameters.find((parameter) => parameter.name === name)?.schema));
      }
      let url: string;
      if (names.length > 0) {
        const target = names[plan.which % names.length] as string;
        url = operation.path.replace(/\{([^}]+)\}/g, (_match, name: string) => (name === target ? (/%|^[\x21-\x7e]*$/.test(plan.mangle) ? plan.mangle : encodeURIComponent(plan.mangle)) : encodeURIComponent(values[name] ?? '')));
      } else {
        // No parameter: mangle the path itself (extra segment, trailing garbage, case).
        const variants = [`${operation.path}/${encodeURIComponent(plan.mangle)}`, `${operation.path}//`, operation.path.toUpperCase(), `${operation.path}%00`, `/${encodeURIComponent(plan.mangle)}${operation.path}`];
        url = variants[plan.which % variants.length] as string;
      }
      const payload = bodyText(plan.body);
      return { method: operation.method, url: url + queryString(plan.query), headers: { ...authHeaders(operation, 'own', actors), ...(payload !== undefined ? json : {}) }, ...withBody(payload), hostile: true, operation };
    }
    case 'contentType':
      return {
        method: operation.method,
        url: fillPath(operation, plan.path) + '?livemode=false',
        headers: { ...authHeaders(operation, 'own', actors), ...(plan.contentType ? { 'content-type': plan.contentType } : {}) },
        payload: plan.contentType?.startsWith('application/x-www-form') ? 'amount=1&currency=USD' : JSON.stringify(plan.body ?? {}),
        hostile: true,
        operation,
      };
    case 'malformedJson':
      return { method: operation.method, url: fillPath(operation, plan.path) + '?livemode=false', headers: { ...authHeaders(operation, 'own', actors), ...json }, payload: plan.text, hostile: true, operation };
    case 'oddMethod': {
      const payload = plan.method === 'GET' || plan.method === 'HEAD' ? undefined : JSON.stringify(plan.body ?? {});
      return { method: plan.method, url: fillPath(operation, plan.path) + '?livemode=false', headers: { ...authHeaders(operation, 'own', actors), ...(payload !== undefined ? json : {}) }, ...withBody(payload), hostile: plan.method !== operation.method, operation };
    }
    case 'credentials': {
      const payload = bodyText(plan.body);
      return {
        method: operation.method,
        url: fillPath(operation, plan.path) + queryString(plan.query),
        headers: { ...authHeaders(operation, plan.credentials, actors), ...(payload !== undefined ? json : {}) },
        ...withBody(payload),
        // The other merchant's own key on its own routes is a valid request; everything else must be refused.
        hostile: plan.credentials !== 'foreignMerchant' && !(operation.access === 'public'),
        operation,
      };
    }
    case 'header': {
      const payload = bodyText(plan.body);
      const value = plan.value.replace(/[^\t\x20-\x7e]/g, '?');
      return {
        method: operation.method,
        url: fillPath(operation, plan.path) + queryString(plan.query),
        headers: { ...authHeaders(operation, 'own', actors), ...(payload !== undefined ? json : {}), [plan.header]: value },
        ...withBody(payload),
        hostile: false,
        operation,
      };
    }
  }
}
