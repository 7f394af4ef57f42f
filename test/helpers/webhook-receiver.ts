import assert from 'node:assert/strict';
import http, { type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { verifyWebhook, type VerifiedWebhookEvent } from '../../src/modules/webhooks/verify.ts';

export interface ReceivedWebhook {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  receivedAt: number;
}

export interface ReceiverAnswer {
  status: number;
  headers?: Record<string, string>;
  body?: string;
  /** Wait this long before answering (timeouts). */
  delayMs?: number;
}

/**
 * A real HTTP receiver on loopback for webhook tests: records every request and every TCP
 * connection, and answers with whatever `answer` says (default 200 "ok").
 */
export class WebhookReceiver {
  readonly requests: ReceivedWebhook[] = [];
  connections = 0;
  answer: (request: ReceivedWebhook) => ReceiverAnswer = () => ({ status: 200, body: 'ok' });
  private readonly waiters: Array<{ count: number; resolve: () => void }> = [];

  private constructor(
    private readonly server: http.Server,
    readonly port: number,
    readonly host: string,
  ) {}

  static async start(host = '127.0.0.1'): Promise<WebhookReceiver> {
    const server = http.createServer();
    await new Promise<void>((resolve) => server.listen(0, host, resolve));
    const port = (server.address() as AddressInfo).port;
    const receiver = new WebhookReceiver(server, port, host);
    server.on('connection', () => {
      receiver.connections += 1;
    });
    server.on('request', (request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const received: ReceivedWebhook = { method: request.method ?? '', path: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks).toString('utf8'), receivedAt: Date.now() };
        receiver.requests.push(received);
        for (const waiter of [...receiver.waiters]) {
          if (receiver.requests.length >= waiter.count) {
            receiver.waiters.splice(receiver.waiters.indexOf(waiter), 1);
            waiter.resolve();
          }
        }
        const answer = receiver.answer(received);
        const send = () => {
          if (response.destroyed) {
            return;
          }
          response.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers });
          response.end(answer.body ?? '');
        };
        if (answer.delayMs) {
          setTimeout(send, answer.delayMs);
        } else {
          send();
        }
      });
    });
    return receiver;
  }

  url(path = '/hooks'): string {
    return `http://${this.host.includes(':') ? `[${this.host}]` : this.host}:${this.port}${path}`;
  }

  /** Resolves once `count` requests arrived in total. */
  waitFor(count: number, timeoutMs = 20_000): Promise<void> {
    if (this.requests.length >= count) {
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`receiver saw ${this.requests.length} of ${count} requests`)), timeoutMs);
      this.waiters.push({
        count,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      });
    });
  }

  reset(): void {
    this.requests.length = 0;
    this.connections = 0;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/**
 * Receivers started on demand by a suite's tests and closed together in its `after`:
 * `const receivers = receiverPool();` … `const hooks = await receivers.start();` …
 * `after(() => receivers.closeAll())`.
 */
export function receiverPool(): { start(host?: string): Promise<WebhookReceiver>; closeAll(): Promise<void> } {
  const started: WebhookReceiver[] = [];
  return {
    async start(host?: string) {
      const receiver = await WebhookReceiver.start(host);
      started.push(receiver);
      return receiver;
    },
    async closeAll() {
      await Promise.all(started.splice(0).map((receiver) => receiver.close()));
    },
  };
}

function flatHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) {
      flat[name] = Array.isArray(value) ? value.join(', ') : value;
    }
  }
  return flat;
}

/**
 * What a merchant's receiver does: the public standardwebhooks library checks the headers, our
 * verifyWebhook checks headers, body signature and timestamp. `bodySecrets` are the secrets the
 * body signature may use (both during a rotation's grace period).
 */
export function assertVerified(received: ReceivedWebhook, secret: string, bodySecrets: readonly string[] = [secret]): VerifiedWebhookEvent {
  const headers = flatHeaders(received.headers);
  const library = new Webhook(secret);
  if (Date.now() - received.receivedAt < 4 * 60_000) {
    const verified = library.verify(received.body, headers) as Record<string, unknown>;
    assert.equal(verified.id, received.headers['webhook-id']);
  } else {
    // Checked long after it arrived (a long harness run): the library's verify() compares the
    // timestamp with the current time, so check it against the arrival time, and the signature with
    // the library's own sign().
    const timestamp = Number(headers['webhook-timestamp']);
    assert.ok(Math.abs(received.receivedAt / 1000 - timestamp) <= 300, 'webhook-timestamp within 5 minutes of arrival');
    const expected = library.sign(headers['webhook-id'] ?? '', new Date(timestamp * 1000), received.body);
    assert.ok((headers['webhook-signature'] ?? '').split(' ').includes(expected), 'a webhook-signature made with the endpoint secret');
  }
  const event = verifyWebhook(received.headers, received.body, bodySecrets, { now: received.receivedAt });
  assert.equal(event.id, received.headers['webhook-id'], 'webhook-id is the event id');
  return event;
}
