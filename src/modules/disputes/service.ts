import type { Database, Executor } from '../../db/client.ts';
import { isId, newId } from '../../crypto/ids.ts';
import type { KeyRing } from '../../crypto/keyring.ts';
import { AppError, notFound } from '../../http/errors.ts';
import type { Clock } from '../../clock.ts';
import { createCursorCodec, pageOf, startingAfterPosition, type PagePosition } from '../../http/paging.ts';
import { recordEvent } from '../events/index.ts';
import { disputeDebit, disputeReturn, type DisputeMovement, type LedgerService } from '../ledger/index.ts';
import type { Merchant } from '../merchants/index.ts';
import type { PaymentsService } from '../payments/index.ts';
import type { ProcessorDispute } from '../card-processor/index.ts';
import { findDispute, insertDispute, listDisputes, lockDisputeByReference, updateDisputeStatus, type DisputeRow } from './repository.ts';
import type { DisputeCloseInput, DisputeListInput, DisputeView } from './schemas.ts';
import { disputeTransition, isFinal } from './states.ts';

export function disputeView(row: DisputeRow): DisputeView {
  return {
    id: row.id,
    paymentPageId: row.pageId,
    paymentId: row.paymentId,
    amount: row.amount,
    currency: row.currency,
    reason: row.reason,
    status: row.status,
    evidenceDueBy: row.evidenceDueBy ? row.evidenceDueBy.getTime() : null,
    createdAt: row.createdAt.getTime(),
    livemode: row.livemode,
  };
}

/** The sandbox processor's side of its disputes (closing them is how integrators test both outcomes). */
export interface SandboxDisputeControl {
  processorName: string;
  closeDispute(processorReference: string, outcome: 'WON' | 'LOST'): Promise<ProcessorDispute | null>;
}

/**
 * Disputes (chargebacks) of card payments. The processor reports a dispute (the sandbox's dispute
 * job, a Stripe webhook after the dispute is fetched) and `applyProcessorDispute` makes ours match,
 * in the caller's transaction: the first report inserts the dispute (unique per processor dispute),
 * debits the disputed amount from the available balance and records DISPUTE_CREATED; a final status
 * closes it under the row lock (a conditional update), returns the amount when WON and records
 * DISPUTE_CLOSED. Ledger movements are keyed by the dispute id, so each happens exactly once.
 */
export function createDisputesService(deps: {
  database: Database;
  clock: Clock;
  keyRing: KeyRing;
  ledger: Pick<LedgerService, 'post'>;
  payments: Pick<PaymentsService, 'findPaymentsForFraud'>;
  /** Throws 404 unless the page is the merchant's (in `livemode` when given). */
  requirePage: (merchant: Merchant, livemode: boolean | undefined, pageId: string) => Promise<unknown>;
  sandbox: SandboxDisputeControl;
}) {
  const { database, clock, ledger, payments } = deps;
  const cursors = createCursorCodec(deps.keyRing, 'disputes');

  function movementOf(row: DisputeRow): DisputeMovement {
    return { merchantId: row.merchantId, livemode: row.livemode, disputeId: row.id, currency: row.currency, amount: row.amount };
  }

  /** The event's data: the dispute as the API shows it, and the page's reference (no PII). */
  function eventData(row: DisputeRow, clientReferenceId: string | null): Record<string, unknown> {
    return { ...disputeView(row), clientReferenceId };
  }

  async function applyProcessorDispute(tx: Executor, reported: ProcessorDispute, now: Date): Promise<DisputeRow> {
    const [payment] = await payments.findPaymentsForFraud(tx, { paymentId: reported.paymentId });
    if (!payment || payment.status !== 'SUCCEEDED' || payment.livemode !== reported.livemode) {
      // The sandbox job can run before the payment's settlement commits: it retries.
      throw new Error(`dispute ${reported.processorReference}: payment ${reported.paymentId} is not a settled successful payment (yet)`);
    }
    const inserted = await insertDispute(tx, {
      id: newId('dispute', now.getTime()),
      merchantId: payment.merchantId,
      livemode: payment.livemode,
      paymentId: payment.paymentId,
      pageId: payment.pageId,
      processor: reported.processor,
      processorReference: reported.processorReference,
      amount: reported.amount,
      currency: reported.currency.toUpperCase(),
      reason: reported.reason,
      // A dispute first seen already closed (its earlier webhooks lost) opens, then closes below.
      status: isFinal(reported.status) ? 'NEEDS_RESPONSE' : reported.status,
      evidenceDueBy: reported.evidenceDueBy,
      createdAt: now,
      updatedAt: now,
    });
    let row = await lockDisputeByReference(tx, reported.processor, reported.processorReference);
    if (!row) {
      throw new Error(`dispute ${reported.processorReference} neither inserted nor found`);
    }
    if (inserted) {
      await ledger.post(tx, disputeDebit(movementOf(row)), now);
      await recordEvent(tx, now, { merchantId: row.merchantId, livemode: row.livemode, type: 'DISPUTE_CREATED', data: eventData(row, payment.clientReferenceId) });
    }
    const transition = disputeTransition(row.status, reported.status);
    if (transition === 'none') {
      return row;
    }
    const from = row.status;
    const closing = transition === 'close';
    const updated = await updateDisputeStatus(tx, row.id, from, { status: reported.status, evidenceDueBy: reported.evidenceDueBy, updatedAt: now, ...(closing ? { closedAt: now } : {}) });
    if (!updated) {
      throw new Error(`dispute ${row.id} changed under its row lock`);
    }
    row = updated;
    if (closing) {
      if (row.status === 'WON') {
        await ledger.post(tx, disputeReturn(movementOf(row)), now);
      }
      await recordEvent(tx, now, { merchantId: row.merchantId, livemode: row.livemode, type: 'DISPUTE_CLOSED', data: eventData(row, payment.clientReferenceId) });
    }
    return row;
  }

  function position(merchantId: string, startingAfter: string): Promise<PagePosition> {
    return startingAfterPosition(startingAfter, {
      codec: cursors,
      isOwnId: (value) => isId('dispute', value),
      find: (id) => findDispute(database.db, merchantId, undefined, id),
      expected: 'the nextCursor of a previous page of disputes or the id of one of your disputes',
    });
  }

  async function requireDispute(merchant: Merchant, livemode: boolean | undefined, disputeId: string): Promise<DisputeRow> {
    const row = await findDispute(database.db, merchant.id, livemode, disputeId);
    if (!row) {
      throw notFound('dispute', disputeId);
    }
    return row;
  }

  return {
    applyProcessorDispute,

    /** A processor's dispute as it stands now (a Stripe webhook's job), in its own transaction. */
    applyReported: (reported: ProcessorDispute) => database.transaction((tx) => applyProcessorDispute(tx, reported, clock.now())),

    async getDispute(merchant: Merchant, livemode: boolean | undefined, disputeId: string): Promise<DisputeView> {
      return disputeView(await requireDispute(merchant, livemode, disputeId));
    },

    /** Newest first, keyset-paged like `GET /v1/events`. */
    async listDisputes(merchant: Merchant, livemode: boolean | undefined, input: DisputeListInput & { paymentId?: string }): Promise<{ disputes: DisputeView[]; hasMore: boolean; nextCursor?: string }> {
      const limit = input.limit ?? 20;
      if (input.paymentPageId !== undefined) {
        await deps.requirePage(merchant, livemode, input.paymentPageId);
      }
      const after = input.startingAfter === undefined ? undefined : await position(merchant.id, input.startingAfter);
      const rows = await listDisputes(database.db, merchant.id, livemode, {
        limit: limit + 1,
        ...(input.paymentPageId !== undefined ? { pageId: input.paymentPageId } : {}),
        ...(input.paymentId !== undefined ? { paymentId: input.paymentId } : {}),
        ...(after ? { after } : {}),
      });
      const page = pageOf(rows, limit, cursors);
      return { disputes: page.items.map(disputeView), hasMore: page.hasMore, ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
    },

    /**
     * Sandbox test helper: the card network decides a sandbox dispute (WON or LOST) at the sandbox
     * processor, and ours follows as it would from a processor's report. Closing again with the
     * same outcome answers the dispute unchanged; with the other outcome, 409 INVALID_STATE.
     */
    async closeTestDispute(merchant: Merchant, disputeId: string, input: DisputeCloseInput): Promise<DisputeView> {
      const row = await requireDispute(merchant, false, disputeId);
      if (isFinal(row.status)) {
        if (row.status === input.outcome) {
          return disputeView(row);
        }
        throw new AppError('INVALID_STATE', `Dispute ${row.id} is already ${row.status}; a closed dispute does not change`);
      }
      if (row.processor !== deps.sandbox.processorName) {
        throw new AppError('INVALID_STATE', `Dispute ${row.id} is decided by its processor (${row.processor}), not by the test helper`);
      }
      const reported = await deps.sandbox.closeDispute(row.processorReference, input.outcome);
      if (!reported) {
        throw new Error(`sandbox dispute ${row.processorReference} is missing at the sandbox processor`);
      }
      const applied = await database.transaction((tx) => applyProcessorDispute(tx, reported, clock.now()));
      return disputeView(applied);
    },
  };
}

export type DisputesService = ReturnType<typeof createDisputesService>;
