import { createHmac, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { onfidoWebSdkStandIn } from './web-sdk.ts';
import type { Address, Applicant, ApplicantBuilder, ApplicantsList, Document, DocumentsList, LivePhoto, LivePhotosList, Check, CheckBuilder, ChecksList, Report, ReportsList, SdkToken, SdkTokenBuilder, WebhookEvent, WebhookEventType, WebhooksList } from '@onfido/api';

/**
 * A replica of Onfido's API v3.6 for the calls Paysail makes, speaking its wire format: applicants,
 * checks (with tags), reports, SDK tokens, webhooks; signed webhook events (`X-SHA2-Signature`:
 * HMAC-SHA256 of the body with the webhook token). Every object it returns is typed with
 * `@onfido/api`'s own types. Outcomes follow Onfido's sandbox convention, by the applicant's last
 * name: `Consider` → consider; `Rejected` → consider with sub-result `rejected`; a last name starting `Unidentified` → the identity report cannot identify them; otherwise
 * clear. A document check (document + facial similarity) is clear unless the last name ends
 * in `Forged` (document `rejected`; `UnidentifiedForged`: step-up, then rejected). Checks stay `in_progress` until the test completes them.
 */
export interface OnfidoReplica {
  readonly url: string;
  readonly apiToken: string;
  readonly webhookToken: string;
  /** Every request: method, path (with query) and parsed JSON body. */
  readonly requests: Array<{ method: string; path: string; body: unknown }>;
  readonly applicants: Map<string, Applicant>;
  readonly checks: Map<string, Check>;
  readonly reports: Map<string, Report>;
  readonly documents: Map<string, Document>;
  readonly livePhotos: Map<string, LivePhoto>;
  /** The web SDK stand-in's address (`ONFIDO_SDK_URL` in tests): see ./web-sdk.ts. */
  readonly sdkUrl: string;
  /** What the web SDK does for an SDK token, without a browser: uploads a document and a selfie for its applicant; returns their ids. */
  captureAsSdk(token: string): { documentId: string; faceId: string };
  /** The next request to this method+path is processed, then its answer is lost (socket destroyed). */
  loseNextAnswer(method: string, pathPrefix: string): void;
  /** Completes a check (its reports too) as the sandbox convention says. */
  complete(checkId: string): void;
  /** A signed webhook delivery for a check or report event: the body and headers Onfido sends. */
  webhook(action: WebhookEventType, resource: { type: 'check' | 'report'; id: string; status?: string }): { body: string; headers: Record<string, string> };
  close(): Promise<void>;
}

const version = '/v3.6';

function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

/** Onfido's referrer patterns (`https://*.example.com/path/*`): `*` matches anything. */
function referrerMatches(pattern: string, referer: string | undefined): boolean {
  if (!referer) {
    return false;
  }
  const expression = pattern.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*');
  return new RegExp(`^${expression}$`).test(referer);
}

function corsHeaders(request: IncomingMessage): Record<string, string> {
  return request.headers.origin ? { 'access-control-allow-origin': request.headers.origin, 'access-control-allow-headers': 'authorization', 'access-control-allow-methods': 'POST' } : {};
}

export async function startOnfidoReplica(options: { apiToken?: string; webhookToken?: string } = {}): Promise<OnfidoReplica> {
  const apiToken = options.apiToken ?? 'api_live.replica-token';
  const webhookToken = options.webhookToken ?? 'replica-webhook-token';
  const requests: OnfidoReplica['requests'] = [];
  const applicants = new Map<string, Applicant>();
  const checks = new Map<string, Check>();
  const reports = new Map<string, Report>();
  const documents = new Map<string, Document>();
  const livePhotos = new Map<string, LivePhoto>();
  /** SDK token → its applicant and referrer pattern (Onfido's are JWTs carrying both). */
  const sdkTokens = new Map<string, { applicantId: string; referrer: string }>();
  const lose: Array<{ method: string; pathPrefix: string }> = [];
  let url = '';

  function send(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
    if (status === 204) {
      response.writeHead(204, headers);
      response.end();
      return;
    }
    response.writeHead(status, { 'content-type': 'application/json', ...headers });
    response.end(JSON.stringify(body));
  }

  function storeDocument(applicantId: string, type: string, side: string): Document {
    const document = { id: randomUUID(), applicant_id: applicantId, type, side, file_type: 'jpg', file_name: 'capture.jpg', created_at: new Date().toISOString() } as Document;
    documents.set(document.id, document);
    return document;
  }

  function storeLivePhoto(applicantId: string): LivePhoto {
    const photo = { id: randomUUID(), applicant_id: applicantId, file_type: 'jpg', file_name: 'capture.jpg', created_at: new Date().toISOString() } as LivePhoto;
    livePhotos.set(photo.id, photo);
    return photo;
  }

  /**
   * The uploads the web SDK makes from the customer's browser: authorized by the SDK token (not
   * the API token), from a page whose Referer matches the token's referrer pattern (else Onfido
   * answers 401 bad_referrer), multipart with the file.
   */
  async function handleSdkUpload(request: IncomingMessage, response: ServerResponse, path: string, raw: Buffer): Promise<void> {
    const cors = corsHeaders(request);
    const token = sdkTokens.get((request.headers.authorization ?? '').replace(/^Bearer /, ''));
    if (!token) {
      send(response, 401, { error: { type: 'authorization_error', message: 'invalid SDK token' } }, cors);
      return;
    }
    if (!referrerMatches(token.referrer, request.headers.referer)) {
      send(response, 401, { error: { type: 'bad_referrer', message: `Referer ${request.headers.referer ?? '(none)'} does not match ${token.referrer}` } }, cors);
      return;
    }
    const form = await new Response(new Uint8Array(raw), { headers: { 'content-type': request.headers['content-type'] ?? '' } }).formData();
    if (!(form.get('file') instanceof Blob)) {
      send(response, 422, { error: { type: 'validation_error', message: 'file is required' } }, cors);
      return;
    }
    const stored = path === '/documents' ? storeDocument(token.applicantId, String(form.get('type') ?? 'unknown'), String(form.get('side') ?? 'front')) : storeLivePhoto(token.applicantId);
    send(response, 201, stored, cors);
  }

  function handle(method: string, path: string, query: URLSearchParams, body: unknown): { status: number; body: unknown } {
    if (method === 'POST' && path === '/applicants') {
      const input = body as ApplicantBuilder;
      const id = randomUUID();
      const applicant: Applicant = {
        id,
        created_at: new Date().toISOString(),
        href: `${version}/applicants/${id}`,
        sandbox: false,
        first_name: input.first_name,
        last_name: input.last_name,
        ...(input.dob ? { dob: input.dob } : {}),
        ...(input.address ? { address: { ...input.address } as Address } : {}),
      };
      applicants.set(applicant.id, applicant);
      return { status: 201, body: applicant };
    }
    if (method === 'GET' && path === '/applicants') {
      // Newest first, paged (`page` from 1, `per_page` default 20), as Onfido lists them.
      const page = Number(query.get('page') ?? '1');
      const perPage = Number(query.get('per_page') ?? '20');
      const newestFirst = [...applicants.values()].reverse();
      const list: ApplicantsList = { applicants: newestFirst.slice((page - 1) * perPage, page * perPage) };
      return { status: 200, body: list };
    }
    if (method === 'GET' && path === '/checks') {
      const list: ChecksList = { checks: [...checks.values()].filter((check) => check.applicant_id === query.get('applicant_id')) };
      return { status: 200, body: list };
    }
    if (method === 'POST' && path === '/checks') {
      const input = body as CheckBuilder;
      if (!applicants.has(input.applicant_id)) {
        return { status: 422, body: { error: { type: 'validation_error', message: 'applicant not found' } } };
      }
      const needsDocuments = input.report_names.some((name) => name === 'document' || name.startsWith('facial_similarity'));
      const hasUploads = [...documents.values()].some((document) => document.applicant_id === input.applicant_id) && [...livePhotos.values()].some((photo) => (photo as LivePhoto & { applicant_id?: string }).applicant_id === input.applicant_id);
      if (needsDocuments && !hasUploads) {
        return { status: 422, body: { error: { type: 'validation_error', message: 'the applicant has no document or live photo' } } };
      }
      const id = randomUUID();
      const reportIds: string[] = [];
      for (const name of input.report_names) {
        const report = { id: randomUUID(), name, status: 'awaiting_data', check_id: id, created_at: new Date().toISOString() } as Report;
        reports.set(report.id, report);
        reportIds.push(report.id);
      }
      const check: Check = { id, applicant_id: input.applicant_id, status: 'in_progress', tags: input.tags ?? [], report_ids: reportIds, created_at: new Date().toISOString(), href: `${version}/checks/${id}`, results_uri: `https://dashboard.onfido.com/checks/${id}` };
      checks.set(id, check);
      return { status: 201, body: check };
    }
    const applicantPath = /^\/applicants\/([^/]+)$/.exec(path);
    if (method === 'DELETE' && applicantPath?.[1]) {
      // Onfido deletes the applicant with everything of theirs and answers 204; an unknown one is 404.
      const id = applicantPath[1];
      if (!applicants.delete(id)) {
        return { status: 404, body: { error: { type: 'resource_not_found' } } };
      }
      for (const [checkId, stored] of checks) {
        if (stored.applicant_id === id) {
          checks.delete(checkId);
          for (const reportId of stored.report_ids ?? []) {
            reports.delete(reportId);
          }
        }
      }
      for (const [documentId, stored] of documents) {
        if ((stored as Document & { applicant_id?: string }).applicant_id === id) {
          documents.delete(documentId);
        }
      }
      for (const [photoId, stored] of livePhotos) {
        if ((stored as LivePhoto & { applicant_id?: string }).applicant_id === id) {
          livePhotos.delete(photoId);
        }
      }
      return { status: 204, body: null };
    }
    const check = /^\/checks\/([^/]+)$/.exec(path);
    if (method === 'GET' && check?.[1]) {
      const found = checks.get(check[1]);
      return found ? { status: 200, body: found } : { status: 404, body: { error: { type: 'resource_not_found' } } };
    }
    if (method === 'GET' && path === '/reports') {
      const list: ReportsList = { reports: [...reports.values()].filter((report) => report.check_id === query.get('check_id')) };
      return { status: 200, body: list };
    }
    const report = /^\/reports\/([^/]+)$/.exec(path);
    if (method === 'GET' && report?.[1]) {
      const found = reports.get(report[1]);
      return found ? { status: 200, body: found } : { status: 404, body: { error: { type: 'resource_not_found' } } };
    }
    if (method === 'POST' && path === '/sdk_token') {
      const input = body as SdkTokenBuilder;
      if (!applicants.has(input.applicant_id)) {
        return { status: 422, body: { error: { type: 'validation_error' } } };
      }
      const token: SdkToken = { token: `sdk-${input.applicant_id}-${randomUUID()}` };
      sdkTokens.set(token.token, { applicantId: input.applicant_id, referrer: input.referrer ?? '*://*/*' });
      return { status: 200, body: token };
    }
    if (method === 'GET' && path === '/documents') {
      const list: DocumentsList = { documents: [...documents.values()].filter((document) => document.applicant_id === query.get('applicant_id')) };
      return { status: 200, body: list };
    }
    if (method === 'GET' && path === '/live_photos') {
      const list: LivePhotosList = { live_photos: [...livePhotos.values()].filter((photo) => (photo as LivePhoto & { applicant_id?: string }).applicant_id === query.get('applicant_id')) };
      return { status: 200, body: list };
    }
    if (method === 'GET' && path === '/webhooks') {
      const list: WebhooksList = { webhooks: [] };
      return { status: 200, body: list };
    }
    return { status: 404, body: { error: { type: 'resource_not_found', message: `${method} ${path}` } } };
  }

  const server: Server = createServer((request, response) => {
    void (async () => {
      const raw = await readBody(request);
      const target = new URL(request.url ?? '/', 'http://replica');
      const isJson = (request.headers['content-type'] ?? '').startsWith('application/json');
      const body: unknown = raw.length > 0 && isJson ? JSON.parse(raw.toString('utf8')) : null;
      requests.push({ method: request.method ?? 'GET', path: `${target.pathname}${target.search}`, body });
      if (request.method === 'GET' && target.pathname === '/web-sdk/onfido.js') {
        response.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' });
        response.end(onfidoWebSdkStandIn);
        return;
      }
      const sdkUpload = target.pathname === `${version}/documents` || target.pathname === `${version}/live_photos`;
      if (request.method === 'OPTIONS' && sdkUpload) {
        response.writeHead(204, corsHeaders(request));
        response.end();
        return;
      }
      if (request.method === 'POST' && sdkUpload) {
        await handleSdkUpload(request, response, target.pathname.slice(version.length), raw);
        return;
      }
      if (request.headers.authorization !== `Token token=${apiToken}`) {
        send(response, 401, { error: { type: 'authorization_error', message: 'Authorization error' } });
        return;
      }
      if (!target.pathname.startsWith(version)) {
        send(response, 404, { error: { type: 'resource_not_found' } });
        return;
      }
      const path = target.pathname.slice(version.length);
      const result = handle(request.method ?? 'GET', path, target.searchParams, body);
      const lost = lose.findIndex((entry) => entry.method === request.method && path.startsWith(entry.pathPrefix));
      if (lost >= 0) {
        lose.splice(lost, 1);
        response.socket?.destroy();
        return;
      }
      send(response, result.status, result.body);
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${version}`;

  return {
    url,
    apiToken,
    webhookToken,
    requests,
    applicants,
    checks,
    reports,
    documents,
    livePhotos,
    get sdkUrl() {
      return `${new URL(url).origin}/web-sdk/onfido.js`;
    },
    captureAsSdk(token) {
      const holder = sdkTokens.get(token);
      if (!holder) {
        throw new Error('unknown SDK token');
      }
      return { documentId: storeDocument(holder.applicantId, 'passport', 'front').id, faceId: storeLivePhoto(holder.applicantId).id };
    },
    loseNextAnswer(method, pathPrefix) {
      lose.push({ method, pathPrefix });
    },
    complete(checkId) {
      const check = checks.get(checkId);
      if (!check) {
        throw new Error(`no check ${checkId}`);
      }
      const lastName = applicants.get(check.applicant_id)?.last_name;
      let result: 'clear' | 'consider' = 'clear';
      for (const reportId of check.report_ids ?? []) {
        const report = reports.get(reportId);
        if (!report) {
          continue;
        }
        let outcome: Pick<Report, 'result' | 'sub_result'> = { result: 'clear' };
        if (lastName === 'Rejected') {
          outcome = { result: 'consider', sub_result: 'rejected' };
        } else if (lastName === 'Consider') {
          outcome = { result: 'consider' };
        } else if (lastName?.startsWith('Unidentified') && report.name === 'identity_enhanced') {
          outcome = { result: 'unidentified' };
        } else if (lastName?.endsWith('Forged') && report.name === 'document') {
          outcome = { result: 'consider', sub_result: 'rejected' };
        }
        if (outcome.result !== 'clear') {
          result = 'consider';
        }
        reports.set(reportId, { ...report, status: 'complete', ...outcome } as Report);
      }
      checks.set(checkId, { ...check, status: 'complete', result });
    },
    webhook(action, resource) {
      const event: WebhookEvent = {
        payload: {
          resource_type: resource.type,
          action,
          object: { id: resource.id, status: 'complete', completed_at_iso8601: '2026-01-01T00:00:00Z', href: `${url}/${resource.type}s/${resource.id}`, ...(resource.status ? { status: resource.status as 'complete' } : {}) },
        },
      };
      const body = JSON.stringify(event);
      const signature = createHmac('sha256', webhookToken).update(body).digest('hex');
      return { body, headers: { 'content-type': 'application/json', 'x-sha2-signature': signature } };
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
