/**
 * The SDK's view of the generated types (`generated/openapi.ts`, openapi-typescript): one entry per
 * `/v1` operation keyed `'GET /v1/customers/{customerId}'`, with its path parameters, query (bracket
 * names nested), body and result (`data`, or the whole body when the answer has no envelope). Types
 * only: nothing here exists at run time.
 */
import type { paths, webhooks } from './generated/openapi.ts';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
type SdkPath = Extract<keyof paths, `/v1/${string}`>;

/** Every `/v1` operation of the document, as `METHOD /v1/path/{param}`. */
export type OperationKey = {
  [P in SdkPath]: { [M in Method]-?: [NonNullable<paths[P][M]>] extends [never] ? never : `${Uppercase<M>} ${P}` }[Method];
}[SdkPath];

/** The openapi-typescript operation object of a key. */
export type OperationOf<K extends OperationKey> = K extends `${infer M} ${infer P}`
  ? P extends SdkPath
    ? Lowercase<M> extends Method
      ? NonNullable<paths[P][Lowercase<M>]>
      : never
    : never
  : never;

type GroupName<Q> = { [K in keyof Q]-?: K extends `${infer H}[${string}` ? H : never }[keyof Q];
/** The members of group `H`, names as they are: optional when all of them are. */
type Members<Q, H extends string> = { [K in keyof Q as K extends `${H}[${string}` ? K : never]: Q[K] };
/** The members of group `H`, each name without `H[…]`'s first bracket: `filters[a][b]` → `a[b]`. */
type Inner<Q, H extends string> = { [K in keyof Q as K extends `${H}[${infer I}]${infer T}` ? `${I}${T}` : never]: Q[K] };

/**
 * Bracket names (`filters[fraudIssueDateRange][start]`) as nested objects, the way the client takes
 * them (it flattens them back); a group is optional when all its members are.
 */
export type Nest<Q> = { [K in keyof Q as K extends `${string}[${string}` ? never : K]: Q[K] } & {
  [H in GroupName<Q> as Partial<Members<Q, H>> extends Members<Q, H> ? H : never]?: Nest<Inner<Q, H>>;
} & { [H in GroupName<Q> as Partial<Members<Q, H>> extends Members<Q, H> ? never : H]: Nest<Inner<Q, H>> };

type ParametersOf<K extends OperationKey> = OperationOf<K>['parameters'];
type PathParams<K extends OperationKey> = ParametersOf<K> extends { path: infer P } ? P : Record<string, never>;
type QueryOf<K extends OperationKey> = [NonNullable<ParametersOf<K>['query']>] extends [never] ? Record<string, never> : Nest<NonNullable<ParametersOf<K>['query']>>;
type RequestBodyOf<K extends OperationKey> = NonNullable<OperationOf<K>['requestBody']>;
type BodyOf<K extends OperationKey> = [RequestBodyOf<K>] extends [never]
  ? undefined
  : RequestBodyOf<K> extends { content: { 'application/json': infer B } }
    ? NonNullable<B> // an optional body's schema says "or nothing" with a null branch; the client omits the body instead
    : undefined;
type SuccessBody<K extends OperationKey> = OperationOf<K>['responses'] extends { 200: { content: { 'application/json': infer R } } } ? R : never;
type ResultOf<K extends OperationKey> = SuccessBody<K> extends { status: 'SUCCEEDED'; data: infer D } ? D : SuccessBody<K>;

/** Whether an operation takes no body, an optional one, or requires one (as the document says). */
export type BodyMode<K extends OperationKey> = [RequestBodyOf<K>] extends [never] ? 'none' : OperationOf<K> extends { requestBody: object } ? 'required' : 'optional';
/** Whether a success answer is `{status: 'SUCCEEDED', data}` (all but the entitlements query). */
export type HasEnvelope<K extends OperationKey> = SuccessBody<K> extends { status: 'SUCCEEDED'; data: unknown } ? true : false;

/** Every `/v1` operation: path parameters, query (bracket names nested), body and result. */
export type Operations = {
  [K in OperationKey]: {
    pathParams: PathParams<K>;
    query: QueryOf<K>;
    body: BodyOf<K>;
    result: ResultOf<K>;
  };
};

export interface OperationSpec {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** OpenAPI path template, `{name}` for path parameters. */
  path: string;
  pathParams: readonly string[];
  /** Query parameter names as sent (bracket notation kept). */
  query: readonly string[];
  body: 'none' | 'optional' | 'required';
  /** Whether a success answer is `{status: 'SUCCEEDED', data}` (all but the entitlements query). */
  envelope: boolean;
}

/**
 * The shape `generated/operations.ts` must have: exactly the operations of the types, each with the
 * method and path of its key and the body mode and envelope its types say.
 */
export type OperationTable = {
  [K in OperationKey]: OperationSpec & {
    method: K extends `${infer M} ${string}` ? M : never;
    path: K extends `${string} ${infer P}` ? P : never;
    body: BodyMode<K>;
    envelope: HasEnvelope<K>;
  };
};

/** The event types of the document's `webhooks` section. */
export type WebhookEventType = keyof webhooks;

type WebhookBody<E extends WebhookEventType> = NonNullable<webhooks[E]['post']> extends { requestBody: { content: { 'application/json': infer B } } } ? B : never;

/**
 * A verified webhook delivery, discriminated by `type`: `WebhookEvent<'FRAUD_REPORTED'>` is that
 * event's exact body (its `data` included, and the body `signature`); `WebhookEvent` is the union of all.
 */
export type WebhookEvent<E extends WebhookEventType = WebhookEventType> = { [T in E]: WebhookBody<T> }[E];
