import { booleanFlag, integerFlag, stringFlag } from './args.ts';
import type { Command } from './command.ts';
import { CommandError, UsageError, exitCodes, writeLine, type CliIo } from './io.ts';
import { buildSignedRequest, generateWebhookSecret, secretKey, secretPrefix, type WebhookEventPayload } from '../modules/webhooks/index.ts';

/**
 * `paysail listen`: a merchant's events, forwarded to a local URL and signed like real deliveries,
 * for local development. It polls the public events API (`GET /v1/events`) with the merchant's API
 * key instead of opening a tunnel: nothing is exposed to the internet, nothing is registered on the
 * server, and it works against any Paysail the developer can reach (docs/cli.md explains the choice).
 *
 * The list is newest first and paged with `startingAfter`. Each poll reads pages from the newest
 * down to `lookbackMs` below the newest event already seen and forwards what was not seen, oldest
 * first. The look-back catches an event whose transaction committed after a newer one was listed
 * (its `createdAt` is taken before its commit).
 */
const lookbackMs = 60_000;
const pageSize = 100;
const forwardTimeoutMs = 15_000;

interface ApiEvent extends WebhookEventPayload {
  [key: string]: unknown;
}

interface EventPage {
  events: ApiEvent[];
  hasMore: boolean;
  nextCursor?: string;
}

interface ListenOptions {
  apiUrl: string;
  apiKey: string;
  forwardTo: string;
  livemode: boolean;
  intervalMs: number;
  secret: string;
  types: ReadonlySet<string> | null;
}

function describeError(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error as Error).message;
}

async function fetchPage(options: ListenOptions, startingAfter: string | undefined, signal: AbortSignal): Promise<EventPage> {
  const url = new URL('/v1/events', options.apiUrl);
  url.searchParams.set('limit', String(pageSize));
  url.searchParams.set('livemode', String(options.livemode));
  if (startingAfter !== undefined) {
    url.searchParams.set('startingAfter', startingAfter);
  }
  let response: Response;
  try {
    response = await fetch(url, { headers: { authorization: `Basic ${Buffer.from(`${options.apiKey}:`).toString('base64')}`, accept: 'application/json' }, signal });
  } catch (error) {
    if (signal.aborted) {
      throw error;
    }
    throw new PollError(`cannot reach ${options.apiUrl}: ${describeError(error)}`);
  }
  const text = await response.text();
  let body: { status?: string; data?: EventPage; errorCode?: string; errorMessage?: string } = {};
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    // not JSON: reported with the status below
  }
  if (response.status === 401 || response.status === 403) {
    // The key is wrong or revoked, or live mode is not enabled: polling again will not help.
    throw new CommandError(`${options.apiUrl} refused the API key (${response.status} ${body.errorCode ?? ''}: ${body.errorMessage ?? text.slice(0, 200)})`);
  }
  if (response.status !== 200 || body.status !== 'SUCCEEDED' || !body.data) {
    throw new PollError(`GET /v1/events answered ${response.status}${body.errorCode ? ` ${body.errorCode}` : ''}`);
  }
  return body.data;
}

/** A poll that failed for a reason that may pass (server restarting, network): retried next interval. */
class PollError extends Error {}

/** Events since the last poll: every page down to `floor`, unseen ones, oldest first. */
async function fetchNewEvents(options: ListenOptions, seen: ReadonlyMap<string, number>, floor: number, signal: AbortSignal): Promise<ApiEvent[]> {
  const fresh: ApiEvent[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await fetchPage(options, cursor, signal);
    for (const event of page.events) {
      if (!seen.has(event.id) && event.createdAt >= floor) {
        fresh.push(event);
      }
    }
    const last = page.events[page.events.length - 1];
    if (!page.hasMore || !last || last.createdAt < floor || page.nextCursor === undefined) {
      break;
    }
    cursor = page.nextCursor;
  }
  return fresh.sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** POSTs one event signed exactly like a webhook delivery; returns the line to print. */
async function forwardEvent(options: ListenOptions, event: ApiEvent, signal: AbortSignal): Promise<string> {
  const payload: WebhookEventPayload = { id: event.id, type: event.type, createdAt: event.createdAt, livemode: event.livemode, data: event.data };
  const request = buildSignedRequest(payload, { bodySecret: options.secret, headerSecrets: [options.secret], timestampSeconds: Math.floor(Date.now() / 1000) });
  const started = Date.now();
  const prefix = `${new Date().toISOString().slice(11, 19)}  ${event.type}  ${event.id}  →`;
  try {
    const response = await fetch(options.forwardTo, {
      method: 'POST',
      headers: { ...request.headers, 'user-agent': 'paysail-cli-listen' },
      body: request.body,
      redirect: 'manual',
      signal: AbortSignal.any([signal, AbortSignal.timeout(forwardTimeoutMs)]),
    });
    await response.arrayBuffer();
    return `${prefix} ${response.status} (${Date.now() - started} ms)`;
  } catch (error) {
    if (signal.aborted) {
      throw error;
    }
    return `${prefix} failed: ${describeError(error)} (${Date.now() - started} ms)`;
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

function defaultStopSignal(stop: () => void): () => void {
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return () => {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  };
}

async function listen(io: CliIo, options: ListenOptions): Promise<number> {
  const controller = new AbortController();
  const removeStopHandler = (io.onStopSignal ?? defaultStopSignal)(() => controller.abort());
  const { signal } = controller;
  /** Event id → createdAt of every event within the look-back window (forwarded or there at start). */
  const seen = new Map<string, number>();
  let newest = Number.NEGATIVE_INFINITY;
  let forwarded = 0;
  const remember = (events: readonly ApiEvent[]) => {
    for (const event of events) {
      seen.set(event.id, event.createdAt);
      newest = Math.max(newest, event.createdAt);
    }
  };
  /** Below the look-back window nothing is forwarded any more, so nothing there needs remembering. */
  const forgetOld = () => {
    for (const [id, createdAt] of seen) {
      if (createdAt < newest - lookbackMs) {
        seen.delete(id);
      }
    }
  };
  try {
    // "From now on": what exists at start (within the look-back window) counts as seen.
    try {
      const first = await fetchPage(options, undefined, signal);
      const head = first.events[0];
      remember(head ? await fetchNewEvents(options, seen, head.createdAt - lookbackMs, signal) : []);
    } catch (error) {
      if (error instanceof PollError) {
        throw new CommandError(error.message);
      }
      throw error;
    }
    const mode = options.livemode ? 'live' : 'sandbox';
    writeLine(io.stdout, `Forwarding ${mode} events${options.types ? ` (${[...options.types].join(', ')})` : ''} from ${options.apiUrl} to ${options.forwardTo}`);
    writeLine(io.stdout, `Webhook signing secret for this session: ${options.secret}`);
    writeLine(io.stdout, `Ready: polling every ${options.intervalMs} ms from now on. Press Ctrl-C to stop.`);
    let failing = false;
    while (!signal.aborted) {
      await sleep(options.intervalMs, signal);
      if (signal.aborted) {
        break;
      }
      let fresh: ApiEvent[];
      try {
        fresh = await fetchNewEvents(options, seen, newest - lookbackMs, signal);
        if (failing) {
          writeLine(io.stderr, 'polling again');
          failing = false;
        }
      } catch (error) {
        if (error instanceof PollError) {
          if (!failing) {
            writeLine(io.stderr, `${error.message}; retrying every ${options.intervalMs} ms`);
            failing = true;
          }
          continue;
        }
        throw error;
      }
      for (const event of fresh) {
        if (options.types === null || options.types.has(event.type)) {
          writeLine(io.stdout, await forwardEvent(options, event, signal));
          forwarded += 1;
        }
        remember([event]);
      }
      forgetOld();
    }
  } catch (error) {
    if (!signal.aborted) {
      throw error;
    }
  } finally {
    removeStopHandler();
  }
  writeLine(io.stdout, `Stopped; forwarded ${forwarded} event${forwarded === 1 ? '' : 's'}.`);
  return exitCodes.ok;
}

function httpUrl(command: string, flag: string, raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`${flag} must be an http(s) URL, got "${raw}"`, command);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`${flag} must be an http(s) URL, got "${raw}"`, command);
  }
  return url.toString();
}

const listenCommand: Command = {
  name: 'listen',
  summary: "forward a merchant's events, signed like webhooks, to a local URL (local development)",
  positionals: [],
  flags: {
    'forward-to': { type: 'string', valueName: 'URL', description: 'where to POST each event, e.g. http://localhost:3000/webhooks (required)' },
    'api-url': { type: 'string', valueName: 'URL', description: 'the Paysail server (default: PAYSAIL_API_URL or http://localhost:4000)' },
    'api-key': { type: 'string', valueName: 'KEY', description: "the merchant's API key sk_… (default: PAYSAIL_API_KEY; prefer the variable)" },
    livemode: { type: 'boolean', description: 'forward live events instead of sandbox events' },
    events: { type: 'string', valueName: 'TYPES', description: 'only these event types, comma-separated (e.g. CUSTOMER_UPDATED,PAYMENT_SUCCEEDED)' },
    secret: { type: 'string', valueName: 'whsec_…', description: 'sign with this secret instead of a new one per session' },
    interval: { type: 'string', valueName: 'MS', description: 'poll interval in milliseconds, 100-60000 (default 1000)' },
  },
  details: [
    'Polls GET /v1/events with the API key and forwards every event created from now on to --forward-to,',
    'oldest first, with the Standard Webhooks headers (webhook-id, webhook-timestamp, webhook-signature)',
    'and the body `signature` of real deliveries, under the session secret printed at start. Verify them',
    'with that secret exactly as in production. Prints one line per event with the local answer; a',
    'failed forward is printed and not retried. No tunnel: nothing is exposed or registered. Stops on',
    'Ctrl-C (SIGINT) or SIGTERM, exit 0.',
  ],
  examples: ['PAYSAIL_API_KEY=sk_… paysail listen --forward-to http://localhost:3000/webhooks', 'paysail listen --forward-to http://localhost:3000/hook --api-url https://paysail.example.com --events PAYMENT_SUCCEEDED'],
  async run({ io, args }) {
    const forwardTo = stringFlag(args, 'forward-to');
    if (forwardTo === undefined) {
      throw new UsageError('--forward-to URL is required', 'listen');
    }
    const apiKey = stringFlag(args, 'api-key') ?? io.env.PAYSAIL_API_KEY;
    if (apiKey === undefined || apiKey === '') {
      throw new UsageError('an API key is required: set PAYSAIL_API_KEY or pass --api-key', 'listen');
    }
    const secret = stringFlag(args, 'secret') ?? generateWebhookSecret();
    if (!secret.startsWith(secretPrefix)) {
      throw new UsageError(`--secret must start with ${secretPrefix}`, 'listen');
    }
    try {
      secretKey(secret);
    } catch {
      throw new UsageError('--secret must be whsec_ followed by base64', 'listen');
    }
    const types = stringFlag(args, 'events');
    return listen(io, {
      apiUrl: httpUrl('listen', '--api-url', stringFlag(args, 'api-url') ?? io.env.PAYSAIL_API_URL ?? 'http://localhost:4000').replace(/\/+$/, ''),
      apiKey,
      forwardTo: httpUrl('listen', '--forward-to', forwardTo),
      livemode: booleanFlag(args, 'livemode') ?? false,
      intervalMs: integerFlag('listen', args, 'interval', 1000, { min: 100, max: 60_000 }),
      secret,
      types: types === undefined ? null : new Set(types.split(',').map((type) => type.trim()).filter((type) => type !== '')),
    });
  },
};

export const listenCommands: readonly Command[] = [listenCommand];
