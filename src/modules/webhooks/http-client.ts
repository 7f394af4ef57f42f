import type { Socket } from 'node:net';
import type { Agent, buildConnector, Dispatcher } from 'undici';
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

/** Socket errors after which a request is sent once more, when no answer to it had started and the socket had served one before. */
const resetCodes = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET']);

/**
 * The SSRF guard's connector for one policy (decision 0063): names resolve through `guardedLookup`
 * (only the addresses the policy allows are connected to), and every new socket's connected address
 * is checked again before undici writes a request on it. A kept-alive socket is only reused by the
 * same agent, so by requests of the policy it was checked under: it is checked once, here.
 */
function guardedConnector(build: typeof buildConnector, policy: TargetPolicy, timeoutMs: number): buildConnector.connector {
  const connect = build({ lookup: guardedLookups[policy], timeout: timeoutMs });
  return (options, callback) =>
    connect(options, (error, socket) => {
      if (error !== null) {
        callback(error, null);
        return;
      }
      const remote = (socket as Socket).remoteAddress;
      const reason = remote ? refusalUnder(policy, remote) : 'unknown';
      if (reason !== null) {
        socket.destroy();
        callback(new BlockedTargetError(`connected address ${remote ?? '?'} is ${reason}`), null);
        return;
      }
      // A reset (RST) reaches undici as the socket's bare ECONNRESET, without the counters its own
      // "other side closed" carries: they are added here (this listener runs before undici's), so
      // a reset of a kept-alive socket (bytes read before) is told from one of a new socket.
      socket.on('error', (socketError: Error & { socket?: { bytesRead: number } }) => {
        socketError.socket ??= { bytesRead: socket.bytesRead };
      });
      callback(null, socket);
    });
}

type Attempt = AttemptResult & { reusedSocketReset: boolean };

/**
 * Sends webhook requests with undici's dispatcher (decision 0063; before, node:http): redirects are
 * never followed (no redirect interceptor), and the SSRF guard sees the address actually connected
 * to — IP literals are checked up front, names through `guardedLookup`, and each new socket's remote
 * address in `guardedConnector`. One agent per policy keeps up to `maxSockets` connections per
 * origin (endpoint) alive between bursts; a request that fails on a reused socket the receiver had
 * just closed is sent once more.
 */
export function createWebhookHttpClient(options: { timeoutMs: number; allowPrivateTargets: boolean; maxSockets?: number; userAgent?: string }): WebhookHttpClient {
  const maxSockets = options.maxSockets ?? 64;
  // One agent per policy: a kept-alive socket opened for a sandbox delivery to a private address is
  // never reused by a live delivery to the same host name. Idle connections close after 4 s (or the
  // receiver's Keep-Alive hint less 2 s), before a typical server's 5 s. undici (a megabyte of the
  // bundle, about a tenth of a restart's CPU) is loaded with the first delivery, not at start.
  const makeAgents = async (): Promise<Record<TargetPolicy, Agent>> => {
    // The module's default export: its CommonJS exports, both through Node and in the bundle (whose
    // namespace of a CommonJS package has only `default`).
    const { default: undici } = await import('undici');
    const agentFor = (policy: TargetPolicy) =>
      new undici.Agent({
        connect: guardedConnector(undici.buildConnector, policy, options.timeoutMs),
        connections: maxSockets,
        keepAliveTimeout: 4_000,
        headersTimeout: 0,
        bodyTimeout: 0,
        // The answer's headers are small; a receiver that sends more is cut off.
        maxHeaderSize: 16 * 1024,
      });
    return { public: agentFor('public'), private: agentFor('private') };
  };
  let loading: Promise<Record<TargetPolicy, Agent>> | null = null;
  let agents: Record<TargetPolicy, Agent> | null = null;
  let closed = false;
  const loadAgents = () => {
    loading ??= makeAgents().then((made) => {
      if (closed) {
        closeAgents(made);
      }
      return (agents = made);
    });
    return loading;
  };
  const closeAgents = (made: Record<TargetPolicy, Agent>) => {
    for (const agent of Object.values(made)) {
      void agent.destroy().catch(() => undefined);
    }
  };
  const userAgent = options.userAgent ?? 'Paysail-Webhooks/1.0 (+https://github.com/paysail)';

  /** Why a request that was never written timed out: every connection to the origin busy, or none established in time. */
  function notSent(agent: Agent, target: URL, timeoutMs: number): string {
    const connected = Number(agent.stats[target.origin]?.connected ?? 0);
    return connected >= maxSockets
      ? `no free connection to ${target.host} within ${timeoutMs} ms (${maxSockets} busy); not sent`
      : `no connection to ${target.host} established within ${timeoutMs} ms; not sent`;
  }

  function attempt(agent: Agent, target: URL, headers: Record<string, string>, body: string, timeoutMs: number): Promise<Attempt> {
    const started = performance.now();
    return new Promise((resolve) => {
      let settled = false;
      let controller: Dispatcher.DispatchController | null = null;
      let statusCode: number | null = null;
      let retryAfter: string | undefined;
      const chunks: Buffer[] = [];
      let kept = 0;
      let total = 0;
      const finish = (result: Omit<AttemptResult, 'latencyMs'>, reusedSocketReset = false) => {
        if (settled) {
          return;
        }
        settled = true;
        clearTimeout(timer);
        resolve({ ...result, latencyMs: Math.round(performance.now() - started), reusedSocketReset });
      };
      const answered = (error: string | null) => {
        const status = statusCode ?? 0;
        const ok = status >= 200 && status < 300;
        finish({
          ok,
          statusCode: status,
          // NUL cannot be stored in a PostgreSQL text (nor jsonb) value: a receiver must not be able to fail the write of its attempt.
          responseBody: (chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)).toString('utf8').replaceAll('\u0000', '\ufffd'),
          error: error ?? (ok ? null : status >= 300 && status < 400 ? `HTTP ${status}: redirects are not followed` : `HTTP ${status}`),
          retryAfter,
        });
      };
      // The limit covers waiting for a free connection too (at most maxSockets per origin are open):
      // one attempt never outlasts WEBHOOK_TIMEOUT_MS, which the job lease is sized for. The deadline
      // is declared after one more look at the sockets (setImmediate runs after the event loop's poll
      // phase, timers before it): when this process's own loop was blocked past the deadline, an
      // answer that arrived meanwhile is read first, not counted as the receiver's timeout.
      const timer = setTimeout(
        () =>
          setImmediate(() => {
            if (settled) {
              return;
            }
            const error = new AttemptTimeoutError(controller ? `no complete answer within ${timeoutMs} ms` : notSent(agent, target, timeoutMs));
            if (statusCode !== null) {
              answered(`timeout: ${error.message}`);
            } else {
              finish({ ok: false, statusCode: null, responseBody: null, error: `timeout: ${error.message}`, retryAfter: undefined });
            }
            // Still queued: aborted when it reaches a socket (onRequestStart), never sent.
            controller?.abort(error);
          }),
        timeoutMs,
      );
      const handler: Dispatcher.DispatchHandler = {
        onRequestStart(started) {
          controller = started;
          if (settled) {
            started.abort(new AttemptTimeoutError('timed out before it was sent'));
          }
        },
        onResponseStart(_controller, status, responseHeaders) {
          statusCode = status;
          if (status === 429 || status === 503) {
            const header = responseHeaders['retry-after'];
            retryAfter = Array.isArray(header) ? header[0] : header;
          }
        },
        onResponseData(active, chunk) {
          total += chunk.length;
          if (kept < responseBodyLimit) {
            const piece = chunk.subarray(0, responseBodyLimit - kept);
            chunks.push(piece);
            kept += piece.length;
          }
          if (total > drainLimit) {
            answered(null);
            active.abort(new Error('answer body over the drain limit'));
          }
        },
        onResponseEnd() {
          answered(null);
        },
        onResponseError(_controller, error: Error & { code?: string; socket?: { bytesRead?: number } }) {
          if (statusCode !== null) {
            answered(`answer interrupted: ${error.message}`);
            return;
          }
          // undici reports the receiver closing the connection before answering as UND_ERR_SOCKET with the
          // socket's counters: bytes read before this request's answer started mean a kept-alive socket.
          const reusedSocketReset = controller !== null && resetCodes.has(error.code ?? '') && (error.socket?.bytesRead ?? 0) > 0;
          const message = error instanceof BlockedTargetError ? `blocked: ${error.message}` : `${error.code ?? 'error'}: ${error.message}`;
          finish({ ok: false, statusCode: null, responseBody: null, error: message, retryAfter: undefined }, reusedSocketReset);
        },
      };
      agent.dispatch(
        {
          origin: target.origin,
          path: `${target.pathname}${target.search}`,
          method: 'POST',
          headers: { ...headers, 'user-agent': userAgent },
          body,
        },
        handler,
      );
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
      const agent = (agents ?? (await loadAgents()))[policy];
      const first = await attempt(agent, target, headers, body, limit);
      // Sent again after the event loop's poll phase: the closes of the receiver's other idle
      // connections that arrived with this one are read first, so it does not go out on one of them.
      const final = first.reusedSocketReset ? await new Promise(setImmediate).then(() => attempt(agent, target, headers, body, limit)) : first;
      const { reusedSocketReset: _reusedSocketReset, ...result } = final;
      return result;
    },
    close() {
      closed = true;
      if (agents !== null) {
        closeAgents(agents);
      }
    },
  };
}
