import { createHash } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { withoutCommitGuard } from '../../db/commit-guard.ts';
import type { Database, Executor } from '../../db/client.ts';
import { sandboxProviderRecords } from '../../db/schema/index.ts';
import { randomToken } from '../../crypto/ids.ts';
import { enqueueJob } from '../../jobs/queue.ts';
import type { JobDefinition } from '../../jobs/worker.ts';
import type { Clock } from '../../clock.ts';
import { lookupBin } from './bin-table.ts';
import { cvcLengthFor, isCardExpired, isLuhnValid } from './cards.ts';
import { createSandboxDisputes, scheduleSandboxDispute } from './sandbox-disputes.ts';
import type { CardDescription, CardDetails, CardProcessor, CardScheme, ChargeResult, PaymentState, RefundState } from './types.ts';

export const sandboxCardProcessorName = 'sandbox-card';
export const sandboxFraudSignalQueue = 'card-processor.sandbox-fraud-signal';
/** How long after a charge on the fraud test card its issuer "reports" it. */
export const sandboxFraudSignalDelayMs = 2000;

/** What a test card does when charged (and, saved as a token, on every renewal). */
export type CardBehaviour = { outcome: 'succeed'; fraudSignal?: { fraudType: string }; refundsFail?: true; disputed?: true } | { outcome: 'decline'; declineReason: string };

/**
 * The sandbox test cards (docs/API.md §9, docs/guides/sandbox.md). Any other Luhn-valid number
 * succeeds, with scheme, type and issuer from the BIN table.
 */
export const sandboxTestCards: Readonly<Record<string, CardBehaviour>> = {
  '4242424242424242': { outcome: 'succeed' },
  '5555555555554444': { outcome: 'succeed' },
  '4000056655665556': { outcome: 'succeed' },
  '4000000000000002': { outcome: 'decline', declineReason: 'card_declined' },
  '4000000000009995': { outcome: 'decline', declineReason: 'insufficient_funds' },
  '4000000000000069': { outcome: 'decline', declineReason: 'expired_card' },
  '4000000000000127': { outcome: 'decline', declineReason: 'incorrect_cvc' },
  // Succeeds; its issuer reports it as card-not-present fraud (Visa TC40 type 6) a moment later.
  '4100000000000019': { outcome: 'succeed', fraudSignal: { fraudType: '6' } },
  // Succeeds; every refund of it fails (as Stripe's 4000000000005126).
  '4000000000005126': { outcome: 'succeed', refundsFail: true },
  // Succeeds; the cardholder disputes it (fraudulent) a moment later (as Stripe's 4000000000000259).
  '4000000000000259': { outcome: 'succeed', disputed: true },
};

/** A fraud signal as a card network sends it: keyed by its own transaction id. */
export interface NetworkFraudSignal {
  livemode: boolean;
  network: CardScheme;
  networkTransactionId: string;
  fraudType: string;
  reportedAt: Date;
}

export type FraudSignalReceiver = (tx: Executor, signal: NetworkFraudSignal, now: Date) => Promise<void>;

interface ChargeRecord {
  kind: 'charge';
  amount: number;
  currency: string;
  result: ChargeResult;
  /** Absent on records written before refunds existed (they refund normally). */
  refundsFail?: boolean;
}

/** The payment the customer confirms with the sandbox card form (created by `createPayment`). */
interface SessionRecord {
  kind: 'session';
  amount: number;
  currency: string;
  saveCard: boolean;
}

interface RefundRecord {
  kind: 'refund';
  paymentId: string;
  amount: number;
  /** Decided when the refund is made; visible once the record's readyAt has passed. */
  outcome: 'SUCCEEDED' | 'FAILED';
}

interface TokenRecord {
  kind: 'token';
  card: CardDescription;
  behaviour: CardBehaviour;
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/** Deterministic per payment: Visa-style 15-digit transaction id, Mastercard-style banknet reference + MMDD. */
function networkTransactionIdFor(paymentId: string, scheme: CardScheme, now: Date): string {
  const bytes = digest(`ntid:${paymentId}`);
  if (scheme === 'MASTERCARD') {
    const alphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZ0123456789';
    let reference = '';
    for (let index = 0; index < 9; index += 1) {
      reference += alphabet[(bytes[index] ?? 0) % alphabet.length];
    }
    const month = String(now.getUTCMonth() + 1).padStart(2, '0');
    const day = String(now.getUTCDate()).padStart(2, '0');
    return `${reference}${month}${day}`;
  }
  let digits = '';
  for (let index = 0; digits.length < 15; index += 1) {
    digits += String((bytes[index % bytes.length] ?? 0) % 10);
  }
  return digits;
}

/**
 * The deterministic sandbox card processor. It behaves like an outside processor: it keeps its own
 * records in `sandbox_provider_records` (provider `sandbox-card`) — one per payment session
 * (`session:<payment id>`), one per charge keyed by our payment id (first write wins, so a retry or
 * a cancel racing a confirmation returns the first result), one per saved-card token holding the
 * card's description and test behaviour (never its number), and one per refund (`refund:<id>`,
 * settled `refundDelayMs` after it was made). It refuses live payments.
 */
export function createSandboxCardProcessor(deps: { database: Database; clock: Clock; fraudSignalDelayMs?: number; refundDelayMs?: number; disputeDelayMs?: number }) {
  const { database, clock } = deps;
  const disputeDelayMs = deps.disputeDelayMs ?? sandboxFraudSignalDelayMs;
  const disputes = createSandboxDisputes({ database, clock, processorName: sandboxCardProcessorName });
  const refundDelayMs = deps.refundDelayMs ?? 0;
  const fraudSignalDelayMs = deps.fraudSignalDelayMs ?? sandboxFraudSignalDelayMs;
  const receivers: FraudSignalReceiver[] = [];

  function refuseLive(livemode: boolean): void {
    if (livemode) {
      throw new Error('the sandbox card processor does not take live charges');
    }
  }

  async function readRecord<T>(executor: Executor, reference: string): Promise<T | null> {
    const [record] = await executor
      .select({ data: sandboxProviderRecords.data })
      .from(sandboxProviderRecords)
      .where(and(eq(sandboxProviderRecords.provider, sandboxCardProcessorName), eq(sandboxProviderRecords.reference, reference)));
    return record ? (record.data as T) : null;
  }

  function decide(card: CardDescription, behaviour: CardBehaviour, now: Date, cvc: string | null): { declineReason: string } | null {
    if (isCardExpired(card.expMonth, card.expYear, now)) {
      return { declineReason: 'expired_card' };
    }
    if (cvc !== null && cvc.length !== cvcLengthFor(card.scheme)) {
      return { declineReason: 'incorrect_cvc' };
    }
    return behaviour.outcome === 'decline' ? { declineReason: behaviour.declineReason } : null;
  }

  /** Stores the charge (first write wins) and schedules the fraud test card's signal with it. */
  async function recordCharge(paymentId: string, livemode: boolean, record: ChargeRecord, behaviour: CardBehaviour, token: TokenRecord | null, tokenValue: string | null): Promise<ChargeResult> {
    const now = clock.now();
    // The provider's own books, not the merchant request's effect: a live processor would be another
    // service, so its write is not tied to the request's Idempotency-Key (decision 0004).
    return withoutCommitGuard(() => database.transaction(async (tx) => {
      const inserted = await tx
        .insert(sandboxProviderRecords)
        .values({ provider: sandboxCardProcessorName, reference: paymentId, data: record, readyAt: now, createdAt: now })
        .onConflictDoNothing()
        .returning({ reference: sandboxProviderRecords.reference });
      if (inserted.length === 0) {
        const existing = await readRecord<ChargeRecord>(tx, paymentId);
        if (!existing) {
          throw new Error(`sandbox charge ${paymentId} vanished`);
        }
        return existing.result;
      }
      if (token && tokenValue) {
        await tx.insert(sandboxProviderRecords).values({ provider: sandboxCardProcessorName, reference: tokenValue, data: token, readyAt: now, createdAt: now });
      }
      const { result } = record;
      if (result.status === 'SUCCEEDED' && behaviour.outcome === 'succeed' && behaviour.fraudSignal) {
        const signal = { livemode, network: result.card.scheme, networkTransactionId: result.networkTransactionId, fraudType: behaviour.fraudSignal.fraudType };
        await enqueueJob(tx, now, sandboxFraudSignalQueue, signal, {
          runAt: new Date(now.getTime() + fraudSignalDelayMs),
          dedupeKey: `${sandboxFraudSignalQueue}:${paymentId}`,
        });
      }
      if (result.status === 'SUCCEEDED' && behaviour.outcome === 'succeed' && behaviour.disputed) {
        await scheduleSandboxDispute(tx, now, { paymentId, livemode, amount: record.amount, currency: record.currency }, disputeDelayMs);
      }
      return result;
    }));
  }

  function succeeded(paymentId: string, card: CardDescription, now: Date, token: string | null): ChargeResult {
    return {
      status: 'SUCCEEDED',
      processorReference: `sbxch_${digest(`charge:${paymentId}`).toString('hex').slice(0, 24)}`,
      networkTransactionId: networkTransactionIdFor(paymentId, card.scheme, now),
      card,
      token,
    };
  }

  const sessionReference = (paymentId: string) => `session:${paymentId}`;
  const refundReference = (refundId: string) => `refund:${refundId}`;
  const paymentReference = (paymentId: string) => `sbxpi_${digest(`payment:${paymentId}`).toString('hex').slice(0, 24)}`;

  function refundState(refundId: string, record: RefundRecord, readyAt: Date, now: Date): RefundState {
    const processorReference = `sbxre_${digest(`refund:${refundId}`).toString('hex').slice(0, 24)}`;
    if (readyAt.getTime() > now.getTime()) {
      return { status: 'PENDING', processorReference };
    }
    return record.outcome === 'SUCCEEDED' ? { status: 'SUCCEEDED', processorReference } : { status: 'FAILED', processorReference, failureReason: 'declined_by_issuer' };
  }

  /** Charges the card typed into the sandbox form against a payment created by `createPayment` (once per payment id). */
  async function confirm(paymentId: string, session: SessionRecord, livemode: boolean, input: CardDetails): Promise<ChargeResult> {
    const existing = await readRecord<ChargeRecord>(database.db, paymentId);
    if (existing) {
      return existing.result;
    }
    const now = clock.now();
    const number = input.number;
    const charge = (result: ChargeResult, behaviour: CardBehaviour, token: TokenRecord | null, tokenValue: string | null) =>
      recordCharge(paymentId, livemode, { kind: 'charge', amount: session.amount, currency: session.currency, result, ...(behaviour.outcome === 'succeed' && behaviour.refundsFail ? { refundsFail: true } : {}) }, behaviour, token, tokenValue);
    if (!isLuhnValid(number)) {
      return charge({ status: 'DECLINED', declineReason: 'incorrect_number', card: null }, { outcome: 'decline', declineReason: 'incorrect_number' }, null, null);
    }
    const card: CardDescription = { bin: number.slice(0, 6), last4: number.slice(-4), ...lookupBin(number), expMonth: input.expMonth, expYear: input.expYear };
    const behaviour = sandboxTestCards[number] ?? { outcome: 'succeed' };
    const declined = decide(card, behaviour, now, input.cvc);
    if (declined) {
      return charge({ status: 'DECLINED', declineReason: declined.declineReason, card }, behaviour, null, null);
    }
    const tokenValue = session.saveCard ? `sbxtok_${randomToken(18)}` : null;
    return charge(succeeded(paymentId, card, now, tokenValue), behaviour, tokenValue ? { kind: 'token', card, behaviour } : null, tokenValue);
  }

  const processor: CardProcessor = {
    name: sandboxCardProcessorName,

    async createPayment(input) {
      refuseLive(input.livemode);
      const now = clock.now();
      const session: SessionRecord = { kind: 'session', amount: input.amount, currency: input.currency, saveCard: input.saveCard };
      await withoutCommitGuard(() =>
        database.db.insert(sandboxProviderRecords).values({ provider: sandboxCardProcessorName, reference: sessionReference(input.paymentId), data: session, readyAt: now, createdAt: now }).onConflictDoNothing(),
      );
      return { processorReference: paymentReference(input.paymentId), clientSecret: null };
    },

    async retrievePayment(input): Promise<PaymentState | null> {
      refuseLive(input.livemode);
      const charge = await readRecord<ChargeRecord>(database.db, input.paymentId);
      if (charge && charge.kind === 'charge') {
        return charge.result;
      }
      const session = await readRecord<SessionRecord>(database.db, sessionReference(input.paymentId));
      return session ? { status: 'PENDING', processorReference: paymentReference(input.paymentId) } : null;
    },

    async cancelPayment(input) {
      refuseLive(input.livemode);
      const session = await readRecord<SessionRecord>(database.db, sessionReference(input.paymentId));
      const result: ChargeResult = { status: 'DECLINED', declineReason: 'processing_error', card: null };
      // First write wins: a confirmation that got there first is what the payment is.
      return recordCharge(input.paymentId, input.livemode, { kind: 'charge', amount: session?.amount ?? 0, currency: session?.currency ?? '', result }, { outcome: 'decline', declineReason: 'processing_error' }, null, null);
    },

    async chargeSaved(input) {
      refuseLive(input.livemode);
      const existing = await readRecord<ChargeRecord>(database.db, input.paymentId);
      if (existing) {
        return existing.result;
      }
      const now = clock.now();
      const token = await readRecord<TokenRecord>(database.db, input.token);
      if (!token || token.kind !== 'token') {
        const result: ChargeResult = { status: 'DECLINED', declineReason: 'invalid_token', card: null };
        return recordCharge(input.paymentId, input.livemode, { kind: 'charge', amount: input.amount, currency: input.currency, result }, { outcome: 'decline', declineReason: 'invalid_token' }, null, null);
      }
      const declined = decide(token.card, token.behaviour, now, null);
      const result: ChargeResult = declined ? { status: 'DECLINED', declineReason: declined.declineReason, card: token.card } : succeeded(input.paymentId, token.card, now, null);
      const refundsFail = token.behaviour.outcome === 'succeed' && token.behaviour.refundsFail === true;
      return recordCharge(input.paymentId, input.livemode, { kind: 'charge', amount: input.amount, currency: input.currency, result, ...(refundsFail ? { refundsFail } : {}) }, token.behaviour, null, null);
    },

    async refund(input) {
      refuseLive(input.livemode);
      const now = clock.now();
      const charge = await readRecord<ChargeRecord>(database.db, input.paymentId);
      if (!charge || charge.kind !== 'charge' || charge.result.status !== 'SUCCEEDED') {
        throw new Error(`sandbox refund ${input.refundId}: payment ${input.paymentId} has not succeeded`);
      }
      if (!Number.isInteger(input.amount) || input.amount < 1 || input.amount > charge.amount) {
        throw new Error(`sandbox refund ${input.refundId}: amount ${input.amount} is not within the payment's ${charge.amount}`);
      }
      const record: RefundRecord = { kind: 'refund', paymentId: input.paymentId, amount: input.amount, outcome: charge.refundsFail ? 'FAILED' : 'SUCCEEDED' };
      await withoutCommitGuard(() =>
        database.db
          .insert(sandboxProviderRecords)
          .values({ provider: sandboxCardProcessorName, reference: refundReference(input.refundId), data: record, readyAt: new Date(now.getTime() + refundDelayMs), createdAt: now })
          .onConflictDoNothing(),
      );
      const stored = await processor.retrieveRefund({ refundId: input.refundId, livemode: input.livemode });
      if (!stored) {
        throw new Error(`sandbox refund ${input.refundId} vanished`);
      }
      return stored;
    },

    async retrieveRefund(input) {
      refuseLive(input.livemode);
      const [row] = await database.db
        .select({ data: sandboxProviderRecords.data, readyAt: sandboxProviderRecords.readyAt })
        .from(sandboxProviderRecords)
        .where(and(eq(sandboxProviderRecords.provider, sandboxCardProcessorName), eq(sandboxProviderRecords.reference, refundReference(input.refundId))));
      return row ? refundState(input.refundId, row.data as RefundRecord, row.readyAt, clock.now()) : null;
    },
  };

  return {
    ...processor,
    ...disputes,

    /**
     * The sandbox's own hosted card form (sandbox mode only): confirms a payment made with
     * `createPayment` with the card typed in. A payment never created answers null.
     */
    async confirmWithCard(input: { paymentId: string; livemode: boolean; card: CardDetails }): Promise<ChargeResult | null> {
      refuseLive(input.livemode);
      const session = await readRecord<SessionRecord>(database.db, sessionReference(input.paymentId));
      return session ? confirm(input.paymentId, session, input.livemode, input.card) : null;
    },

    /** Where the sandbox "network" delivers fraud signals (the fraud reports service). */
    onFraudSignal(receiver: FraudSignalReceiver): void {
      receivers.push(receiver);
    },

    /** Every job queue of the sandbox processor (its disputes and fraud signals), registered by platform.ts in one loop. */
    jobs(): JobDefinition[] {
      return [disputes.disputeJob(), this.fraudSignalJob()];
    },

    /** Delivers the fraud test card's signal; retried until the payment it names is recorded. */
    fraudSignalJob(): JobDefinition<{ livemode: boolean; network: CardScheme; networkTransactionId: string; fraudType: string }> {
      return {
        queue: sandboxFraudSignalQueue,
        maxAttempts: 12,
        handle: async (payload, context) => {
          await context.transaction(async (tx) => {
            for (const receiver of receivers) {
              await receiver(tx, { ...payload, reportedAt: context.now }, context.now);
            }
          });
        },
      };
    },
  };
}

export type SandboxCardProcessor = ReturnType<typeof createSandboxCardProcessor>;
