import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import type { ParsedMail } from 'mailparser';
import { queryRows, type Database } from '../../src/db/client.ts';
import { initialState, sameState, transitions, type PayoutEmail, type PayoutPageState } from '../../src/modules/payout-pages/states.ts';
import { assertVerified, type WebhookReceiver } from '../helpers/webhook-receiver.ts';

/**
 * The end-of-run check of the process harnesses (crash.ts, scale-out.test.ts), driven by the
 * driver's own list of acknowledged operations — not by the rows the run left behind. From that list
 * it derives every event, e-mail, renewal and funding the operations must have produced, and asserts
 * that each was recorded exactly once and delivered: an operation whose event or e-mail was never
 * written is missing here, even though no row without a delivery exists. Anything recorded that no
 * acknowledged operation explains fails too.
 *
 * - payment page paid: one PAYMENT_SUCCEEDED for the page;
 * - subscription page paid: its PAYMENT_SUCCEEDED, and one ENTITLEMENT_CREATED (the first period);
 * - renewal: one more ENTITLEMENT_CREATED and one more entitlement for the subscription;
 * - payout page created: the `payout_page_created` e-mail;
 * - payout page confirmed (run until PROCESSED): one PAYOUT_PAGE_UPDATED per move from CREATED to
 *   PROCESSED, each move a row of the transition table, and the e-mail each of those rows sends;
 * - funding: one `fund` ledger transaction of its amount;
 * - refund: one PAYMENT_REFUNDED for the refund (crash-rails.ts checks it applied once);
 * - customers and pages created: no event and no e-mail.
 *
 * Delivered means: a SUCCEEDED delivery, and at least one verified copy at the receiver (copies of
 * one event — a retry after a crash — share its `webhook-id` and body); every e-mail row is `sent`
 * and reached the SMTP sink (copies share the row's Message-ID).
 */

/**
 * An operation the driver got acknowledged. `id`: the created customer or page for the create
 * operations, the page for confirm and pay, the subscription for a renewal.
 */
export type AcknowledgedOperation =
  | { kind: 'createCustomer' | 'createPaymentPage' | 'createSubscription' | 'createPayoutPage' | 'confirmPayoutPage' | 'payPaymentPage' | 'paySubscription' | 'renewSubscription'; id: string }
  /** `id`: the refund. */
  | { kind: 'refundPayment'; id: string }
  | { kind: 'fundBalance'; amount: number };

export interface AcknowledgedEffects {
  events: number;
  /** Requests the receiver got beyond one per event (copies sharing a webhook-id). */
  webhookDuplicates: number;
  emails: number;
  emailDuplicates: number;
  fundings: number;
  renewals: number;
}

const emailTemplates: Record<PayoutEmail, string> = {
  kycRequired: 'payout_page_kyc_required',
  processing: 'payout_page_processing',
  processed: 'payout_page_processed',
  failed: 'payout_page_failed',
  canceled: 'payout_page_canceled',
  declined: 'payout_page_declined',
  expired: 'payout_page_expired',
  returned: 'payout_page_returned',
};
const processed: PayoutPageState = { status: 'PROCESSED', subStatus: 'PAID' };

/** A multiset: how many times each key is expected or was found. */
class Tally {
  readonly counts = new Map<string, number>();
  add(key: string, times = 1): void {
    this.counts.set(key, (this.counts.get(key) ?? 0) + times);
  }
  /** Keys with fewer copies here than in `other`, with the difference. */
  short(other: Tally): Record<string, number> {
    const result: Record<string, number> = {};
    for (const [key, wanted] of other.counts) {
      const have = this.counts.get(key) ?? 0;
      if (have < wanted) {
        result[key] = wanted - have;
      }
    }
    return result;
  }
}

interface EventRow {
  id: string;
  type: string;
  data: Record<string, unknown>;
}

/**
 * The PAYOUT_PAGE_UPDATED events of one page, walked from CREATED: each must start where the last
 * ended, be a move of the transition table, and the walk must end PROCESSED using every event once.
 * Returns the e-mails the moves send.
 */
function walkPayoutEvents(pageId: string, events: readonly EventRow[]): string[] {
  const remaining = [...events];
  const emails: string[] = [];
  let current: PayoutPageState = initialState;
  const describe = () => JSON.stringify(events.map((event) => `${String(event.data.previousStatus)}/${String(event.data.previousSubStatus)} -> ${String(event.data.status)}/${String(event.data['sub-status'])}`));
  while (!sameState(current, processed)) {
    const from = current;
    const next = remaining.filter((event) => event.data.previousStatus === from.status && event.data.previousSubStatus === from.subStatus);
    assert.equal(next.length, 1, `payout page ${pageId}: exactly one PAYOUT_PAGE_UPDATED leaves ${from.status}/${from.subStatus} (events: ${describe()})`);
    const [event] = next as [EventRow];
    const to = { status: event.data.status, subStatus: event.data['sub-status'] } as PayoutPageState;
    const move = transitions.find((row) => sameState(row.from, from) && sameState(row.to, to));
    assert.ok(move, `payout page ${pageId}: ${from.status}/${from.subStatus} -> ${to.status}/${to.subStatus} is a move of the transition table`);
    if (move.email) {
      emails.push(emailTemplates[move.email]);
    }
    remaining.splice(remaining.indexOf(event), 1);
    current = to;
  }
  assert.deepEqual(remaining.map((event) => event.id), [], `payout page ${pageId}: no PAYOUT_PAGE_UPDATED beyond its walk to PROCESSED (events: ${describe()})`);
  return emails;
}

export async function assertAcknowledgedEffects(
  database: Database,
  input: { merchantId: string; operations: readonly AcknowledgedOperation[]; receiver: WebhookReceiver; secret: string; mails: readonly ParsedMail[] },
): Promise<AcknowledgedEffects> {
  const { merchantId, operations } = input;
  const events = await queryRows<EventRow>(database.db, sql`select id, type, data from events where merchant_id = ${merchantId} order by created_at, id`);

  // --- events: what the acknowledged operations must have produced -------------------------------
  const expectedEvents = new Tally();
  const expectedEmails = new Tally();
  const expectedEntitlements = new Map<string, number>();
  const confirmedPayouts = new Set<string>();
  for (const operation of operations) {
    switch (operation.kind) {
      case 'payPaymentPage':
        expectedEvents.add(`PAYMENT_SUCCEEDED page ${operation.id}`);
        break;
      case 'refundPayment':
        expectedEvents.add(`PAYMENT_REFUNDED refund ${operation.id}`);
        break;
      case 'paySubscription': {
        expectedEvents.add(`PAYMENT_SUCCEEDED page ${operation.id}`);
        const [subscription] = await queryRows<{ id: string }>(database.db, sql`select id from subscriptions where page_id = ${operation.id} and merchant_id = ${merchantId}`);
        assert.ok(subscription, `the paid subscription page ${operation.id} has a subscription`);
        expectedEvents.add(`ENTITLEMENT_CREATED subscription ${subscription.id}`);
        expectedEntitlements.set(subscription.id, (expectedEntitlements.get(subscription.id) ?? 0) + 1);
        break;
      }
      case 'renewSubscription':
        expectedEvents.add(`ENTITLEMENT_CREATED subscription ${operation.id}`);
        expectedEntitlements.set(operation.id, (expectedEntitlements.get(operation.id) ?? 0) + 1);
        break;
      case 'createPayoutPage':
        expectedEmails.add(`payout_page_created ${operation.id}`);
        break;
      case 'confirmPayoutPage':
        confirmedPayouts.add(operation.id);
        break;
      default:
        break;
    }
  }
  const recordedEvents = new Tally();
  const payoutEvents = new Map<string, EventRow[]>();
  for (const event of events) {
    if (event.type === 'PAYOUT_PAGE_UPDATED' && confirmedPayouts.has(String(event.data.id))) {
      payoutEvents.set(String(event.data.id), [...(payoutEvents.get(String(event.data.id)) ?? []), event]);
    } else if (event.type === 'PAYMENT_SUCCEEDED') {
      recordedEvents.add(`PAYMENT_SUCCEEDED page ${String(event.data.pageId)}`);
      // A paid page sends its customer one receipt, in the same transaction (e-mails about a page are related to it).
      expectedEmails.add(`payment_receipt ${String(event.data.pageId)}`);
    } else if (event.type === 'PAYMENT_REFUNDED') {
      recordedEvents.add(`PAYMENT_REFUNDED refund ${String(event.data.id)}`);
      // A refund that succeeded sends one refund notice, in the transaction that settles it.
      expectedEmails.add(`payment_refunded ${String(event.data.paymentPageId)}`);
    } else if (event.type === 'ENTITLEMENT_CREATED') {
      recordedEvents.add(`ENTITLEMENT_CREATED subscription ${String(event.data.subscriptionId)}`);
    } else {
      recordedEvents.add(`${event.type} ${String(event.data.id ?? '')} (no acknowledged operation explains it)`);
    }
  }
  assert.deepEqual(recordedEvents.short(expectedEvents), {}, 'every acknowledged operation recorded its events (missing, with how many copies)');
  assert.deepEqual(expectedEvents.short(recordedEvents), {}, 'no event recorded twice or without an acknowledged operation');
  for (const pageId of confirmedPayouts) {
    for (const template of walkPayoutEvents(pageId, payoutEvents.get(pageId) ?? [])) {
      expectedEmails.add(`${template} ${pageId}`);
    }
  }

  // --- delivery: every event (all of them explained now) reached the receiver --------------------
  const undelivered = await queryRows<{ id: string; type: string }>(
    database.db,
    sql`select e.id, e.type from events e where e.merchant_id = ${merchantId}
        and not exists (select 1 from webhook_deliveries d where d.event_id = e.id and d.status = 'SUCCEEDED')`,
  );
  assert.deepEqual(undelivered, [], 'every event has a succeeded delivery');
  const copies = new Map<string, string[]>();
  for (const request of input.receiver.requests) {
    const event = assertVerified(request, input.secret);
    assert.equal(request.headers['webhook-id'], event.id, 'webhook-id is the event id');
    copies.set(event.id, [...(copies.get(event.id) ?? []), request.body]);
  }
  const eventIds = new Set(events.map((event) => event.id));
  assert.deepEqual(
    events.filter((event) => !copies.has(event.id)).map((event) => `${event.type} ${event.id}`),
    [],
    'the receiver got every event',
  );
  assert.deepEqual(
    [...copies.keys()].filter((id) => !eventIds.has(id)),
    [],
    'the receiver got no event the database does not hold',
  );
  for (const [id, bodies] of copies) {
    assert.ok(
      bodies.every((body) => body === bodies[0]),
      `every copy of ${id} is the same body`,
    );
  }

  // --- e-mails ----------------------------------------------------------------------------------
  const emailRows = await queryRows<{ id: string; template: string; relatedId: string | null; status: string }>(
    database.db,
    sql`select id, template, related_id as "relatedId", status from emails where merchant_id = ${merchantId}`,
  );
  const recordedEmails = new Tally();
  for (const row of emailRows) {
    recordedEmails.add(`${row.template} ${String(row.relatedId)}`);
  }
  assert.deepEqual(recordedEmails.short(expectedEmails), {}, 'every acknowledged operation wrote its e-mails (missing, with how many copies)');
  assert.deepEqual(expectedEmails.short(recordedEmails), {}, 'no e-mail written twice or without an acknowledged operation');
  assert.deepEqual(
    emailRows.filter((row) => row.status !== 'sent').map((row) => `${row.template} ${row.id}: ${row.status}`),
    [],
    'every e-mail was sent',
  );
  const sentCopies = new Map<string, number>();
  for (const mail of input.mails) {
    const messageId = mail.messageId ?? '';
    const id = /^<([^@>]+)@/.exec(messageId)?.[1] ?? messageId;
    sentCopies.set(id, (sentCopies.get(id) ?? 0) + 1);
  }
  assert.deepEqual(
    emailRows.filter((row) => !sentCopies.has(row.id)).map((row) => `${row.template} ${row.id}`),
    [],
    'every e-mail reached the SMTP server',
  );
  const emailIds = new Set(emailRows.map((row) => row.id));
  assert.deepEqual(
    [...sentCopies.keys()].filter((id) => !emailIds.has(id)),
    [],
    'the SMTP server got no e-mail the database does not hold',
  );

  // --- renewals: one entitlement per paid first period and per acknowledged renewal -------------
  for (const [subscriptionId, periods] of expectedEntitlements) {
    const [row] = await queryRows<{ periods: number }>(database.db, sql`select count(*)::int as periods from entitlements where subscription_id = ${subscriptionId}`);
    assert.equal(row?.periods ?? 0, periods, `subscription ${subscriptionId}: one entitlement per paid period (${periods})`);
  }

  // --- fundings: one `fund` posting per acknowledged funding, of its amount ----------------------
  const expectedFundings = new Tally();
  for (const operation of operations) {
    if (operation.kind === 'fundBalance') {
      expectedFundings.add(String(operation.amount));
    }
  }
  const recordedFundings = new Tally();
  const fundRows = await queryRows<{ amount: string }>(
    database.db,
    sql`select e.amount::text as amount from ledger_entries e join ledger_transactions t on t.id = e.transaction_id
        where t.merchant_id = ${merchantId} and t.kind = 'fund' and e.amount > 0`,
  );
  for (const row of fundRows) {
    recordedFundings.add(row.amount);
  }
  assert.deepEqual(recordedFundings.short(expectedFundings), {}, 'every acknowledged funding posted (missing amounts)');
  assert.deepEqual(expectedFundings.short(recordedFundings), {}, 'no funding posted twice or without an acknowledged operation');

  return {
    events: events.length,
    webhookDuplicates: input.receiver.requests.length - copies.size,
    emails: emailRows.length,
    emailDuplicates: input.mails.length - sentCopies.size,
    fundings: fundRows.length,
    renewals: operations.filter((operation) => operation.kind === 'renewSubscription').length,
  };
}
