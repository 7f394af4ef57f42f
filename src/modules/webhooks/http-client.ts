import http from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import { BlockedTargetError, blockedLiteral, guardedLookups, refusalUnder, type TargetPolicy } from './ssrf.ts';

/** What one HTTP attempt came to. `statusCode` is null when no answer arrived (refused, timeout, reset). */
export interface AttemptResult {
  ok: boolean;
  statusCode: number | null;
  latencyMs: number;
  /** The first 1 KiB of the answer body. */
  responseBody: string | null;
  error: string | null;
  /** The answer's Retry-After header (429 and 503 only). */
  retryAfter: string | undefined;
}

export interface WebhookHttpClient {
  /**
   * `livemode` for a live endpoint's delivery: https only, and public addresses only whatever
   * `allowPrivateTargets` says (that setting is for sandbox endpoints).
   */
  send(request: { url: string; headers: Record<string, string>; body: string; livemode?: boolean; /** Shorter than the client's own for a suspect endpoint. */ timeoutMs?: number }): Promise<AttemptResult>;
  close(): void;
}

export const responseBodyLimit = 1024;
/** After this much answer body the connection is dropped: nobody needs more, and it ties up a socket. */
const drainLimit = 64 * 1024;

class AttemptTimeoutError extends Error {}

/**
 * Sends webhook requests with node:http(s) (not fetch) so that redirects are never followed and the
 * SSRF guard sees the address actually connected to: `guardedLookup` filters resolved addresses, IP
 * literals are checked up front, and each new socket's remote address is checked again on connect.
 * Keep-alive agents reuse connections to busy receivers; a request that fails on a reused socket the
 * receiver had just closed is sent once more on a fresh one.
 */
export function createWebhookHttpClient(options: { timeoutMs: number; allowPrivateTargets: boolean; maxSockets?: number; userAgent?: string }): WebhookHttpClient {
  const maxSockets = options.maxSockets ?? 64;
  // As many idle sockets kept as may be busy: a busy receiver's connections are reused rather than
  // closed after each burst and opened again (a new connection costs more than the request).
  const agentOptions = { keepAlive: true, maxSockets, maxFreeSockets: maxSockets, timeout: 4_000, scheduling: 'lifo' as const };
  // One pair of agents per policy: a kept-alive socket opened for a sandbox delivery to a private
  // address is never reused by a live delivery to the same host name.
  const agents: Record<TargetPolicy, { http: http.Agent; https: https.Agent }> = {
    public: { http: new http.Agent(agentOptions), https: new https.Agent(agentOptions) },
    private: { http: new http.Agent(agentOptions), https: new https.Agent(agentOptions) },
  };
  const userAgent = options.userAgent ?? 'Paysail-Webhooks/1.0 (+https://github.com/paysail)';

  // Sockets whose connected address passed the check, by the policy it passed under. A socket's
  // remote address never changes, and each policy has its own agents (a socket is only reused by
  // requests of the policy it was opened for), so a kept-alive socket is checked once, on connect.
  const verified = new WeakMap<Socket, TargetPolicy>();

  function checkSocket(socket: Socket, policy: TargetPolicy, fail: (error: Error) => void): void {
    if (verified.get(socket) === policy) {
      return;
    }
    const verify = () => {
      const remote = socket.remoteAddress;
      const reason = remote ? refusalUnder(policy, remote) : 'unknown';
      if (reason !== null) {
        fail(new BlockedTargetError(`connected address ${remote ?? '?'} is ${reason}`));
        return;
      }
      verified.set(socket, policy);
    };
    if (socket.connecting) {
      socket.once('connect', verify);
    } else if (socket.remoteAddress) {
      verify();
    }
  }

  function attempt(target: URL, policy: TargetPolicy, headers: Record<string, string>, body: string, timeoutMs: number): Promise<AttemptResult & { reusedSocketReset: boolean }> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const secure = target.protocol === 'https:';
    const literal = target.hostname.replace(/^\[|\]$/g, '');
    return new Promise((resolve) => {
      let settled = false;
      const finish = (result: Omit<AttemptResult, 'latencyMs'> & { reusedSocketReset?: boolean }) => {
        if (settled) {
          return;
        }
        settled = true;
        clearTimeout(timer);
        resolve({ ...result, latencyMs: elapsed(), reusedSocketReset: result.reusedSocketReset ?? false });
      };
      const request = (secure ? https : http).request({
        protocol: target.protocol,
        hostname: literal,
        port: target.port === '' ? (secure ? 443 : 80) : Number(target.port),
        path: `${target.pathname}${target.search}`,
        method: 'POST',
        agent: secure ? agents[policy].https : agents[policy].http,
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)), 'user-agent': userAgent, host: target.host },
        lookup: guardedLookups[policy],
      });
      // The limit covers waiting for a free connection too (at most maxSockets per origin are open):
      // one attempt never outlasts WEBHOOK_TIMEOUT_MS, which the job lease is sized for.
      // The deadline is declared after one more look at the sockets (setImmediate runs after the
      // event loop's poll phase, timers before it): when this process's own loop was blocked past the
      // deadline (a long synchronous stretch, PGlite's queries), an answer that arrived meanwhile is
      // read first, not counted as the receiver's timeout (which would open its circuit).
      let gotSocket = false;
      const timer = setTimeout(
        () =>
          setImmediate(() => {
            if (!settled) {
              request.destroy(
                new AttemptTimeoutError(gotSocket ? `no complete answer within ${timeoutMs} ms` : `no free connection to ${target.host} within ${timeoutMs} ms (${maxSockets} busy); not sent`),
              );
            }
          }),
        timeoutMs,
      );
      request.on('socket', (socket: Socket) => {
        gotSocket = true;
        checkSocket(socket, policy, (error) => request.destroy(error));
      });
      request.on('error', (error: NodeJS.ErrnoException) => {
        const reusedSocketReset = request.reusedSocket && (error.code === 'ECONNRESET' || error.code === 'EPIPE');
        const message =
          error instanceof AttemptTimeoutError
            ? `timeout: ${error.message}`
            : error instanceof BlockedTargetError
              ? `blocked: ${error.message}`
              : `${error.code ?? 'error'}: ${error.message}`;
        finish({ ok: false, statusCode: null, responseBody: null, error: message, retryAfter: undefined, reusedSocketReset });
      });
      request.on('response', (response) => {
        const statusCode = response.statusCode ?? 0;
        const chunks: Buffer[] = [];
        let kept = 0;
        let total = 0;
        const complete = (error: string | null) => {
          const ok = statusCode >= 200 && statusCode < 300;
          const retryAfterHeader = response.headers['retry-after'];
          finish({
            ok,
            statusCode,
            // NUL cannot be stored in a PostgreSQL text (nor jsonb) value: a receiver must not be able to fail the write of its attempt.
            responseBody: Buffer.concat(chunks).toString('utf8').replaceAll('\u0000', '\ufffd'),
            error: error ?? (ok ? null : statusCode >= 300 && statusCode < 400 ? `HTTP ${statusCode}: redirects are not followed` : `HTTP ${statusCode}`),
            retryAfter: statusCode === 429 || statusCode === 503 ? retryAfterHeader : undefined,
          });
        };
        response.on('data', (chunk: Buffer) => {
          total += chunk.length;
          if (kept < responseBodyLimit) {
            const piece = chunk.subarray(0, responseBodyLimit - kept);
            chunks.push(piece);
            kept += piece.length;
          }
          if (total > drainLimit) {
            complete(null);
            response.destroy();
          }
        });
        response.on('end', () => complete(null));
        response.on('error', (error) => complete(error instanceof AttemptTimeoutError ? `timeout: ${error.message}` : `answer interrupted: ${error.message}`));
        response.on('aborted', () => complete('answer interrupted'));
      });
      request.end(body);
    });
  }

  return {
    async send({ url, headers, body, livemode = false, timeoutMs = options.timeoutMs }) {
      let target: URL;
      try {
        target = new URL(url);
      } catch {
        return { ok: false, statusCode: null, latencyMs: 0, responseBody: null, error: 'invalid URL', retryAfter: undefined };
      }
      if (target.protocol !== 'http:' && target.protocol !== 'https:') {
        return { ok: false, statusCode: null, latencyMs: 0, responseBody: null, error: `blocked: ${target.protocol} is not http or https`, retryAfter: undefined };
      }
      if (livemode && target.protocol !== 'https:') {
        return { ok: false, statusCode: null, latencyMs: 0, responseBody: null, error: 'blocked: live endpoints must use https', retryAfter: undefined };
      }
      const policy: TargetPolicy = options.allowPrivateTargets && !livemode ? 'private' : 'public';
      // IP literals never reach `lookup`; names are checked there, on what they resolve to now.
      const refusal = blockedLiteral(target.hostname, policy);
      if (refusal !== null) {
        return { ok: false, statusCode: null, latencyMs: 0, responseBody: null, error: `blocked: ${refusal}`, retryAfter: undefined };
      }
      const limit = Math.min(timeoutMs, options.timeoutMs);
      const first = await attempt(target, policy, headers, body, limit);
      const final = first.reusedSocketReset ? await attempt(target, policy, headers, body, limit) : first;
      const { reusedSocketReset: _reusedSocketReset, ...result } = final;
      return result;
    },
    close() {
      for (const pair of Object.values(agents)) {
        pair.http.destroy();
        pair.https.destroy();
      }
    },
  };
}
