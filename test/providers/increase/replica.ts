import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import type Increase from 'increase';
import { Webhook } from 'standardwebhooks';
import { createRtpReplicaPart } from './replica-rtp.ts';

/**
 * A replica of the Increase API calls Paysail makes, speaking Increase's wire format with objects
 * typed by the `increase` package: ACH transfers (created once per `Idempotency-Key`, listed by
 * `idempotency_key`, retrieved by id), events, accounts. Tests drive the transfer through its
 * documented states (submitted, settled, returned, rejected) and get each change as a webhook
 * signed with Increase's scheme (Standard Webhooks, the library the package verifies with).
 * It can lose the answers to creations (the transfer exists, the caller hears nothing). Real-Time
 * Payments transfers and the routing number lookup: replica-rtp.ts.
 */
export interface IncreaseReplica {
  readonly baseURL: string;
  readonly apiKey: string;
  readonly accountId: string;
  readonly webhookSecret: string;
  transfers(): Increase.ACHTransfer[];
  /** Real-Time Payments transfers created (once per idempotency key). */
  rtpTransfers(): Increase.RealTimePaymentsTransfer[];
  /** The routing number lookup reports this bank as receiving RTP transfers. */
  supportRealTimePayments(routingNumber: string): void;
  /** Routing number lookups received. */
  readonly routingLookups: number;
  completeRtp(transferId: string): SignedWebhook;
  rejectRtp(transferId: string): SignedWebhook;
  /** Creation requests received (including replays of an idempotency key). */
  readonly createRequests: number;
  /** The next `count` creation requests are processed but answered with a dropped connection. */
  loseCreateAnswers(count: number): void;
  /** The account's available balance (cents) the balance lookup reports. */
  setAvailableBalance(cents: number): void;
  settle(transferId: string): SignedWebhook;
  returnTransfer(transferId: string): SignedWebhook;
  reject(transferId: string): SignedWebhook;
  /** A webhook for an event of another kind (nothing for payouts to do). */
  unrelatedEvent(): SignedWebhook;
  close(): Promise<void>;
}

export interface SignedWebhook {
  readonly eventId: string;
  readonly body: string;
  readonly headers: Record<string, string>;
}

const iso = (date: Date) => date.toISOString();

export interface IncreaseReplicaOptions {
  apiKey?: string;
  webhookSecret?: string;
  /**
   * Called once a creation request is processed (the transfer exists), before its answer is sent;
   * the answer waits for it (the crash harness kills a worker in that window).
   */
  beforeCreateAnswer?: (transfer: Increase.ACHTransfer) => Promise<void>;
}

export async function startIncreaseReplica(options: IncreaseReplicaOptions = {}): Promise<IncreaseReplica> {
  const apiKey = options.apiKey ?? 'test_increase_key';
  const webhookSecret = options.webhookSecret ?? 'increase-webhook-secret';
  const accountId = 'account_in71c4amph0vgo2qllky';
  const byId = new Map<string, Increase.ACHTransfer>();
  const byKey = new Map<string, string>();
  const events = new Map<string, Increase.Event>();
  let createRequests = 0;
  let answersToLose = 0;
  let availableBalance = 1_000_000_000;
  const signer = new Webhook(`whsec_${Buffer.from(webhookSecret).toString('base64')}`);
  const rtp = createRtpReplicaPart({
    accountId,
    debit: (amount) => {
      availableBalance -= amount;
    },
  });

  const account: Increase.Account = {
    id: accountId,
    account_revenue_rate: null,
    bank: 'first_internet_bank',
    closed_at: null,
    created_at: '2020-01-31T23:59:59Z',
    currency: 'USD',
    entity_id: 'entity_n8y8tnk2p9339ti393yi',
    funding: 'deposits',
    idempotency_key: null,
    informational_entity_id: null,
    interest_rate: '0.06',
    loan: null,
    name: 'Paysail payouts',
    program_id: 'program_i2v2os4mwza1oetokh9i',
    status: 'open',
    type: 'account',
  };

  function event(transfer: Increase.ACHTransfer | Increase.RealTimePaymentsTransfer): SignedWebhook {
    const category: Increase.Event['category'] = transfer.type === 'ach_transfer' ? 'ach_transfer.updated' : 'real_time_payments_transfer.updated';
    const created: Increase.Event = { id: `event_${randomUUID().replace(/-/g, '').slice(0, 20)}`, associated_object_id: transfer.id, associated_object_type: transfer.type, category, created_at: iso(new Date()), type: 'event' };
    events.set(created.id, created);
    return sign(created);
  }

  function sign(created: Increase.Event): SignedWebhook {
    const body = JSON.stringify(created);
    const timestamp = new Date();
    const messageId = `msg_${created.id}`;
    return { eventId: created.id, body, headers: { 'content-type': 'application/json', 'webhook-id': messageId, 'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)), 'webhook-signature': signer.sign(messageId, timestamp, body) } };
  }

  function newTransfer(params: Increase.ACHTransferCreateParams, idempotencyKey: string | null): Increase.ACHTransfer {
    const now = iso(new Date());
    return {
      id: `ach_transfer_${randomUUID().replace(/-/g, '').slice(0, 20)}`,
      account_id: params.account_id,
      account_number: params.account_number ?? '',
      acknowledgement: null,
      addenda: null,
      amount: params.amount,
      approval: null,
      cancellation: null,
      company_descriptive_date: null,
      company_discretionary_data: null,
      company_entry_description: params.company_entry_description ?? null,
      company_id: '1234987601',
      company_name: params.company_name ?? null,
      created_at: now,
      created_by: { category: 'api_key', api_key: { description: null } },
      currency: 'USD',
      destination_account_holder: params.destination_account_holder ?? 'unknown',
      external_account_id: null,
      funding: params.funding ?? 'checking',
      idempotency_key: idempotencyKey,
      inbound_funds_hold: null,
      individual_id: null,
      individual_name: params.individual_name ?? null,
      network: 'ach',
      notifications_of_change: [],
      pending_transaction_id: null,
      preferred_effective_date: { date: null, settlement_schedule: params.preferred_effective_date?.settlement_schedule ?? null },
      return: null,
      routing_number: params.routing_number ?? '',
      settlement: null,
      standard_entry_class_code: params.standard_entry_class_code ?? 'corporate_credit_or_debit',
      statement_descriptor: params.statement_descriptor,
      status: 'pending_submission',
      submission: null,
      transaction_id: null,
      type: 'ach_transfer',
    };
  }

  function requireTransfer(id: string): Increase.ACHTransfer {
    const transfer = byId.get(id);
    if (!transfer) {
      throw new Error(`replica: no transfer ${id}`);
    }
    return transfer;
  }

  function send(response: ServerResponse, status: number, body: unknown): void {
    response.writeHead(status, { 'content-type': 'application/json' });
    response.end(JSON.stringify(body));
  }

  async function readBody(request: IncomingMessage): Promise<string> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) {
      chunks.push(chunk as Buffer);
    }
    return Buffer.concat(chunks).toString('utf8');
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (request.headers.authorization !== `Bearer ${apiKey}`) {
      send(response, 401, { status: 401, type: 'invalid_api_key_error', title: 'The API key is invalid.', detail: null });
      return;
    }
    const url = new URL(request.url ?? '/', 'http://replica');
    const parts = url.pathname.split('/').filter(Boolean);
    const realTime = await rtp.handle(request.method ?? 'GET', url, () => readBody(request), typeof request.headers['idempotency-key'] === 'string' ? request.headers['idempotency-key'] : null);
    if (realTime) {
      send(response, realTime.status, realTime.body);
      return;
    }
    if (request.method === 'POST' && url.pathname === '/ach_transfers') {
      createRequests += 1;
      const params = JSON.parse(await readBody(request)) as Increase.ACHTransferCreateParams;
      const key = typeof request.headers['idempotency-key'] === 'string' ? request.headers['idempotency-key'] : null;
      const existing = key ? byKey.get(key) : undefined;
      const transfer = existing ? requireTransfer(existing) : newTransfer(params, key);
      if (!existing) {
        availableBalance -= transfer.amount;
        byId.set(transfer.id, transfer);
        if (key) {
          byKey.set(key, transfer.id);
        }
      }
      await options.beforeCreateAnswer?.(transfer);
      if (answersToLose > 0) {
        answersToLose -= 1;
        request.socket.destroy();
        return;
      }
      send(response, 200, transfer);
      return;
    }
    if (request.method === 'GET' && url.pathname === '/ach_transfers') {
      const key = url.searchParams.get('idempotency_key');
      const accountFilter = url.searchParams.get('account_id');
      const data = [...byId.values()].filter((transfer) => (key === null || transfer.idempotency_key === key) && (accountFilter === null || transfer.account_id === accountFilter));
      send(response, 200, { data, next_cursor: null });
      return;
    }
    if (request.method === 'GET' && parts[0] === 'ach_transfers' && parts[1]) {
      const transfer = byId.get(parts[1]);
      send(response, transfer ? 200 : 404, transfer ?? { status: 404, type: 'object_not_found_error', title: 'Not found', detail: null });
      return;
    }
    if (request.method === 'GET' && parts[0] === 'events' && parts[1]) {
      const found = events.get(parts[1]);
      send(response, found ? 200 : 404, found ?? { status: 404, type: 'object_not_found_error', title: 'Not found', detail: null });
      return;
    }
    if (request.method === 'GET' && parts[0] === 'accounts' && parts[1] === accountId && parts[2] === 'balance') {
      const lookup: Increase.BalanceLookup = { account_id: accountId, available_balance: availableBalance, current_balance: availableBalance, loan: null, type: 'balance_lookup' };
      send(response, 200, lookup);
      return;
    }
    if (request.method === 'GET' && parts[0] === 'accounts' && parts[1] === accountId && parts.length === 2) {
      send(response, 200, account);
      return;
    }
    send(response, 404, { status: 404, type: 'object_not_found_error', title: 'Not found', detail: null });
  }

  const server: Server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => send(response, 500, { status: 500, type: 'internal_server_error', title: String(error), detail: null }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const submitted = (transfer: Increase.ACHTransfer): void => {
    if (!transfer.submission) {
      const now = iso(new Date());
      transfer.submission = { administrative_returns_expected_by: now, effective_date: now.slice(0, 10), expected_funds_settlement_at: now, expected_settlement_schedule: 'same_day', submitted_at: now, trace_number: '058349238292834' };
    }
  };

  return {
    baseURL: `http://127.0.0.1:${port}`,
    apiKey,
    accountId,
    webhookSecret,
    transfers: () => [...byId.values()],
    rtpTransfers: () => rtp.transfers(),
    supportRealTimePayments: (routingNumber) => rtp.supportRealTimePayments(routingNumber),
    get routingLookups() {
      return rtp.routingLookups;
    },
    completeRtp: (transferId) => event(rtp.complete(transferId)),
    rejectRtp: (transferId) => event(rtp.reject(transferId)),
    get createRequests() {
      return createRequests;
    },
    setAvailableBalance(cents) {
      availableBalance = cents;
    },
    loseCreateAnswers(count) {
      answersToLose = count;
    },
    settle(transferId) {
      const transfer = requireTransfer(transferId);
      submitted(transfer);
      transfer.status = 'submitted';
      transfer.settlement = { settled_at: iso(new Date()) };
      return event(transfer);
    },
    returnTransfer(transferId) {
      const transfer = requireTransfer(transferId);
      transfer.status = 'returned';
      transfer.return = {
        addenda_information: null,
        created_at: iso(new Date()),
        raw_return_reason_code: 'R03',
        return_reason_code: 'no_account',
        trace_number: '111122223292834',
        transaction_id: 'transaction_uyrp7fld2ium70oa7oi',
        transfer_id: transfer.id,
      };
      return event(transfer);
    },
    reject(transferId) {
      const transfer = requireTransfer(transferId);
      transfer.status = 'rejected';
      return event(transfer);
    },
    unrelatedEvent() {
      const created: Increase.Event = { id: `event_${randomUUID().replace(/-/g, '').slice(0, 20)}`, associated_object_id: accountId, associated_object_type: 'account', category: 'account.updated', created_at: iso(new Date()), type: 'event' };
      events.set(created.id, created);
      return sign(created);
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
