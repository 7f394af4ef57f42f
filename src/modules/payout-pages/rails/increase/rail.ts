import type Increase from 'increase';
import { loadProviderPackage, withPlainErrors } from '../../../providers/index.ts';
import type { PayoutRail, PayoutRailListing, PayoutRailRecord, PayoutSubmission } from '../types.ts';
import { increaseRtpTransferStatus, increaseTransferStatus } from './status.ts';

export const increaseRailName = 'increase';
/** The rail of Increase's sandbox environment (INCREASE_SANDBOX_*), paying sandbox-mode bank payouts. */
export const increaseSandboxRailName = 'increase-sandbox';

/** Same-day ACH takes entries up to $1,000,000.00 (Nacha's per-entry limit), in cents. */
export const sameDayAchLimit = 100_000_000;

/** Real-Time Payments are sent up to $1,000,000.00 (the network's long-standing per-payment limit; larger goes by ACH), in cents. */
export const realTimePaymentsLimit = 100_000_000;

const rtpPrefix = 'real_time_payments_transfer_';

export interface IncreaseRailOptions {
  apiKey: string;
  accountId: string;
  webhookSecret: string;
  /** The API's base URL; production unless set (tests point it at the replica). */
  baseURL?: string | undefined;
  /** Which keys: live (INCREASE_*) or Increase's sandbox backing sandbox mode (INCREASE_SANDBOX_*). Live unless set. */
  environment?: 'live' | 'test';
  /**
   * Real-Time Payments (INCREASE_RTP_ENABLED): when set, a payout to a bank that receives RTP
   * (Increase's routing number lookup says so) is an RTP transfer from this account number
   * (`account_number_…`) instead of an ACH credit.
   */
  realTimePayments?: { sourceAccountNumberId: string } | null | undefined;
}

/** The official client: every Increase call goes through it. */
export function createIncreaseClient(options: IncreaseRailOptions): Increase {
  const { default: IncreaseClient } = loadProviderPackage('increase');
  return new IncreaseClient({ apiKey: options.apiKey, webhookSecret: options.webhookSecret, maxRetries: 2, timeout: 20_000, ...(options.baseURL ? { baseURL: options.baseURL } : {}) });
}

/** A reference for a payout refused before it reached Increase (nothing to look up there). */
const refusedPrefix = 'refused:';

function refusal(submission: PayoutSubmission): string | null {
  if (submission.destination.type !== 'BANK_TRANSFER') {
    return 'Increase pays bank accounts only';
  }
  if (submission.currency !== 'USD') {
    return `Increase pays USD; this payout is funded in ${submission.currency}`;
  }
  return null;
}

/**
 * Bank payouts through Increase: an ACH credit from the operator's account to the routing and
 * account number the customer entered, same-day when the amount allows, with the merchant's name
 * on the statement; a Real-Time Payments transfer instead when the operator enabled RTP and the
 * receiving bank supports it. Idempotent on our payout attempt id (Increase's `Idempotency-Key`), and
 * retrievable by it (`idempotency_key` filter).
 */
export function createIncreaseRail(client: Increase, options: Pick<IncreaseRailOptions, 'accountId' | 'environment' | 'realTimePayments'>): PayoutRail {
  const record = (transfer: Increase.ACHTransfer): PayoutRailRecord => ({ reference: transfer.id, status: increaseTransferStatus(transfer) });
  const rtpRecord = (transfer: Increase.RealTimePaymentsTransfer): PayoutRailRecord => ({ reference: transfer.id, status: increaseRtpTransferStatus(transfer) });
  const rtp = options.realTimePayments ?? null;

  /** RTP when the operator enabled it, the amount allows, and the receiving bank takes RTP transfers. */
  async function sendsRealTime(submission: PayoutSubmission & { destination: { type: 'BANK_TRANSFER' } }): Promise<boolean> {
    if (!rtp || submission.amount > realTimePaymentsLimit) {
      return false;
    }
    const banks = await client.routingNumbers.list({ routing_number: submission.destination.routingNumber });
    return banks.data.some((bank) => bank.routing_number === submission.destination.routingNumber && bank.real_time_payments_transfers === 'supported');
  }
  return withPlainErrors('increase', {
    name: options.environment === 'test' ? increaseSandboxRailName : increaseRailName,
    pollIntervalMs: 60_000,
    async submit(submission) {
      const refused = refusal(submission);
      if (refused !== null || submission.destination.type !== 'BANK_TRANSFER') {
        return { reference: `${refusedPrefix}${submission.payoutId}`, status: { status: 'REJECTED', reason: refused ?? 'not a bank transfer' } };
      }
      const { destination } = submission;
      if (rtp && (await sendsRealTime({ ...submission, destination }))) {
        // Same idempotency key as an ACH credit would carry: `retrieve` looks in both, so one attempt is one transfer whatever the lookup says next time.
        const transfer = await client.realTimePaymentsTransfers.create(
          {
            amount: submission.amount,
            account_number: destination.accountNumber,
            routing_number: destination.routingNumber,
            creditor_name: destination.accountHolderName.slice(0, 140),
            source_account_number_id: rtp.sourceAccountNumberId,
            unstructured_remittance_information: `Payout from ${submission.merchantName}`.slice(0, 140),
          },
          { idempotencyKey: submission.payoutId },
        );
        return rtpRecord(transfer);
      }
      const transfer = await client.achTransfers.create(
        {
          account_id: options.accountId,
          amount: submission.amount,
          account_number: destination.accountNumber,
          routing_number: destination.routingNumber,
          funding: destination.accountType === 'SAVINGS' ? 'savings' : 'checking',
          individual_name: destination.accountHolderName.slice(0, 22),
          destination_account_holder: 'individual',
          company_name: submission.merchantName.slice(0, 16),
          company_entry_description: 'PAYOUT',
          statement_descriptor: `Payout from ${submission.merchantName}`.slice(0, 80),
          standard_entry_class_code: 'prearranged_payments_and_deposit',
          ...(submission.amount <= sameDayAchLimit ? { preferred_effective_date: { settlement_schedule: 'same_day' as const } } : {}),
        },
        { idempotencyKey: submission.payoutId },
      );
      return record(transfer);
    },
    async retrieve(payoutId) {
      const page = await client.achTransfers.list({ idempotency_key: payoutId, account_id: options.accountId });
      const transfer = page.data[0];
      if (transfer) {
        return record(transfer);
      }
      if (!rtp) {
        return null;
      }
      const realTime = (await client.realTimePaymentsTransfers.list({ idempotency_key: payoutId, account_id: options.accountId })).data[0];
      return realTime ? rtpRecord(realTime) : null;
    },
    async listPayouts({ from, to }) {
      const listed: PayoutRailListing[] = [];
      for await (const transfer of client.achTransfers.list({ account_id: options.accountId, created_at: { on_or_after: from.toISOString(), before: to.toISOString() }, limit: 100 })) {
        listed.push({ payoutId: transfer.idempotency_key, reference: transfer.id, amount: transfer.amount, status: increaseTransferStatus(transfer).status });
      }
      if (rtp) {
        for await (const transfer of client.realTimePaymentsTransfers.list({ account_id: options.accountId, created_at: { on_or_after: from.toISOString(), before: to.toISOString() }, limit: 100 })) {
          listed.push({ payoutId: transfer.idempotency_key, reference: transfer.id, amount: transfer.amount, status: increaseRtpTransferStatus(transfer).status });
        }
      }
      return listed;
    },
    async availableBalance({ currency }) {
      if (currency !== 'USD') {
        return null;
      }
      return (await client.accounts.balance(options.accountId)).available_balance;
    },
    async fetchStatus(reference) {
      if (reference.startsWith(refusedPrefix)) {
        return { status: 'REJECTED', reason: 'refused before submission' };
      }
      if (reference.startsWith(rtpPrefix)) {
        return increaseRtpTransferStatus(await client.realTimePaymentsTransfers.retrieve(reference));
      }
      return increaseTransferStatus(await client.achTransfers.retrieve(reference));
    },
  });
}
