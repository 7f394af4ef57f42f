import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A tiny round-robin HTTP proxy over the API processes, like a load balancer with health checks:
 * a refused connection (the process is down or restarting) is retried on the next upstream, so it
 * never reaches the client. Anything after the request was handed to a process (a reset or a hang
 * while it runs) is not retried here: it answers 502 with `X-Proxy-Error`, and the client decides
 * (our clients retry with the same Idempotency-Key). When every upstream refuses it answers 503.
 */
export interface ProxyStats {
  forwarded: number;
  refusedAndRetried: number;
  failedAfterSend: number;
  allDown: number;
}

export interface RoundRobinProxy {
  readonly url: string;
  readonly stats: ProxyStats;
  close(): Promise<void>;
}

const hopByHop = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer']);

function isRefused(error: NodeJS.ErrnoException): boolean {
  return error.code === 'ECONNREFUSED';
}

export async function startProxy(upstreams: () => readonly string[], options: { upstreamTimeoutMs?: number } = {}): Promise<RoundRobinProxy> {
  const stats: ProxyStats = { forwarded: 0, refusedAndRetried: 0, failedAfterSend: 0, allDown: 0 };
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const upstreamTimeoutMs = options.upstreamTimeoutMs ?? 30_000;
  let next = 0;

  const server = http.createServer((request, response) => {
    // A client that gives up (its own timeout) resets the socket: nothing to answer then.
    request.on('error', () => undefined);
    response.on('error', () => undefined);
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      const headers: http.OutgoingHttpHeaders = {};
      for (const [name, value] of Object.entries(request.headers)) {
        if (!hopByHop.has(name) && value !== undefined) {
          headers[name] = value;
        }
      }
      headers['content-length'] = String(body.length);
      const list = upstreams();
      const first = next;
      next = (next + 1) % Math.max(1, list.length);

      const answer = (status: number, code: string, message: string) => {
        if (response.headersSent) {
          response.destroy();
          return;
        }
        response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'x-proxy-error': code });
        response.end(JSON.stringify({ status: 'FAILED', errorCode: 'SERVICE_UNAVAILABLE', errorMessage: message }));
      };

      const attempt = (tried: number) => {
        if (tried >= list.length) {
          stats.allDown += 1;
          answer(503, 'all-upstreams-down', 'No API process is accepting connections');
          return;
        }
        const target = new URL(request.url ?? '/', list[(first + tried) % list.length]);
        let settled = false;
        const upstream = http.request(target, { method: request.method, headers, agent, timeout: upstreamTimeoutMs }, (upstreamResponse) => {
          settled = true;
          stats.forwarded += 1;
          const responseHeaders: http.OutgoingHttpHeaders = {};
          for (const [name, value] of Object.entries(upstreamResponse.headers)) {
            if (!hopByHop.has(name) && value !== undefined) {
              responseHeaders[name] = value;
            }
          }
          responseHeaders['x-upstream'] = target.host;
          response.writeHead(upstreamResponse.statusCode ?? 502, responseHeaders);
          upstreamResponse.pipe(response);
          upstreamResponse.on('error', () => response.destroy());
          upstreamResponse.on('aborted', () => response.destroy());
        });
        upstream.on('timeout', () => upstream.destroy(Object.assign(new Error('upstream timeout'), { code: 'ETIMEDOUT' })));
        upstream.on('error', (error: NodeJS.ErrnoException) => {
          if (settled) {
            response.destroy();
            return;
          }
          settled = true;
          if (isRefused(error)) {
            stats.refusedAndRetried += 1;
            attempt(tried + 1);
            return;
          }
          stats.failedAfterSend += 1;
          answer(502, error.code ?? 'upstream-error', 'The API process failed while handling the request');
        });
        upstream.end(body);
      };
      attempt(0);
    });
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    stats,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      agent.destroy();
    },
  };
}
