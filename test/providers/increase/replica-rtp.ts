import { randomUUID } from 'node:crypto';
import type Increase from 'increase';

/**
 * The Real-Time Payments part of the Increase replica (replica.ts wires it): the routing number
 * lookup (which banks receive RTP transfers; tests choose), RTP transfers created once per
 * `Idempotency-Key`, listed by `idempotency_key`, retrieved by id, completed or rejected by the test.
 * Objects typed by the `increase` package.
 */
export interface RtpReplicaPart {
  /** Answers the request when it is an RTP or routing number call; false when it is not one. */
  handle(method: string, url: URL, body: () => Promise<string>, idempotencyKey: string | null): Promise<{ status: number; body: unknown } | false>;
  transfers(): Increase.RealTimePaymentsTransfer[];
  /** Routing numbers whose bank receives RTP transfers (the lookup says `supported`). */
  supportRealTimePayments(routingNumber: string): void;
  readonly routingLookups: number;
  complete(id: string): Increase.RealTimePaymentsTransfer;
  reject(id: string): Increase.RealTimePaymentsTransfer;
}

const iso = (date: Date) => date.toISOString();

export function createRtpReplicaPart(options: { accountId: string; debit: (amount: number) => void }): RtpReplicaPart {
  const byId = new Map<string, Increase.RealTimePaymentsTransfer>();
  const byKey = new Map<string, string>();
  const rtpBanks = new Set<string>();
  let routingLookups = 0;

  function newTransfer(params: Increase.RealTimePaymentsTransferCreateParams, idempotencyKey: string | null): Increase.RealTimePaymentsTransfer {
    return {
      id: `real_time_payments_transfer_${randomUUID().replace(/-/g, '').slice(0, 20)}`,
      account_id: options.accountId,
      account_number: params.account_number ?? '',
      acknowledgement: null,
      amount: params.amount,
      approval: null,
      cancellation: null,
      created_at: iso(new Date()),
      created_by: { category: 'api_key', api_key: { description: null } },
      creditor_name: params.creditor_name,
      currency: 'USD',
      debtor_name: params.debtor_name ?? null,
      external_account_id: null,
      idempotency_key: idempotencyKey,
      pending_transaction_id: null,
      rejection: null,
      routing_number: params.routing_number ?? '',
      source_account_number_id: params.source_account_number_id,
      status: 'pending_submission',
      submission: null,
      transaction_id: null,
      type: 'real_time_payments_transfer',
      ultimate_creditor_name: null,
      ultimate_debtor_name: null,
      unstructured_remittance_information: params.unstructured_remittance_information,
    };
  }

  function requireTransfer(id: string): Increase.RealTimePaymentsTransfer {
    const transfer = byId.get(id);
    if (!transfer) {
      throw new Error(`replica: no RTP transfer ${id}`);
    }
    return transfer;
  }

  const notFound = { status: 404, body: { status: 404, type: 'object_not_found_error', title: 'Not found', detail: null } };

  return {
    async handle(method, url, body, idempotencyKey) {
      const parts = url.pathname.split('/').filter(Boolean);
      if (method === 'GET' && url.pathname === '/routing_numbers') {
        routingLookups += 1;
        const routingNumber = url.searchParams.get('routing_number') ?? '';
        const bank: Increase.RoutingNumberListResponse = {
          routing_number: routingNumber,
          name: 'Replica Bank',
          ach_transfers: 'supported',
          fednow_transfers: 'not_supported',
          real_time_payments_request_for_payment: 'not_supported',
          real_time_payments_transfers: rtpBanks.has(routingNumber) ? 'supported' : 'not_supported',
          wire_transfers: 'supported',
          type: 'routing_number',
        };
        return { status: 200, body: { data: /^\d{9}$/.test(routingNumber) ? [bank] : [], next_cursor: null } };
      }
      if (parts[0] !== 'real_time_payments_transfers') {
        return false;
      }
      if (method === 'POST' && parts.length === 1) {
        const params = JSON.parse(await body()) as Increase.RealTimePaymentsTransferCreateParams;
        const existing = idempotencyKey ? byKey.get(idempotencyKey) : undefined;
        if (existing) {
          return { status: 200, body: requireTransfer(existing) };
        }
        const transfer = newTransfer(params, idempotencyKey);
        byId.set(transfer.id, transfer);
        if (idempotencyKey) {
          byKey.set(idempotencyKey, transfer.id);
        }
        options.debit(transfer.amount);
        return { status: 200, body: transfer };
      }
      if (method === 'GET' && parts.length === 1) {
        const key = url.searchParams.get('idempotency_key');
        const account = url.searchParams.get('account_id');
        const data = [...byId.values()].filter((transfer) => (key === null || transfer.idempotency_key === key) && (account === null || transfer.account_id === account));
        return { status: 200, body: { data, next_cursor: null } };
      }
      if (method === 'GET' && parts[1]) {
        const transfer = byId.get(parts[1]);
        return transfer ? { status: 200, body: transfer } : notFound;
      }
      return notFound;
    },
    transfers: () => [...byId.values()],
    supportRealTimePayments(routingNumber) {
      rtpBanks.add(routingNumber);
    },
    get routingLookups() {
      return routingLookups;
    },
    complete(id) {
      const transfer = requireTransfer(id);
      const now = iso(new Date());
      transfer.status = 'complete';
      transfer.submission = { submitted_at: now, transaction_identification: '20220501234567891T1BSLZO01745013025' };
      transfer.acknowledgement = { acknowledged_at: now };
      return transfer;
    },
    reject(id) {
      const transfer = requireTransfer(id);
      transfer.status = 'rejected';
      transfer.rejection = { reject_reason_additional_information: null, reject_reason_code: 'account_closed', rejected_at: iso(new Date()) };
      return transfer;
    },
  };
}
