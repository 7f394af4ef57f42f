import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { openTestDatabase } from '../../helpers/database.ts';
import { TestClock } from '../../helpers/clock.ts';
import { queryRows, type Database } from '../../../src/db/client.ts';
import { createSandboxCardProcessor, sandboxTestCards, type SandboxCardProcessor } from '../../../src/modules/card-processor/sandbox.ts';
import { createProcessorsByMode } from '../../../src/modules/card-processor/by-mode.ts';
import { lookupBin } from '../../../src/modules/card-processor/bin-table.ts';
import { isCardExpired, isLuhnValid, maskCardNumber, normalizeCardNumber } from '../../../src/modules/card-processor/cards.ts';
import type { CardDetails, ChargeResult } from '../../../src/modules/card-processor/types.ts';

describe('card helpers (pure)', () => {
  test('Luhn: every documented test card is valid; typos and non-digits are not', () => {
    for (const number of [...Object.keys(sandboxTestCards), '378282246310005', '6011111111111117', '5200828282828210']) {
      assert.equal(isLuhnValid(number), true, number);
    }
    for (const number of ['4242424242424241', '4242 4242 4242 4242', '', '42', '4'.repeat(20), 'abcdabcdabcdabcd']) {
      assert.equal(isLuhnValid(number), false, number);
    }
    assert.equal(normalizeCardNumber('4242 4242-4242 4242'), '4242424242424242');
  });

  test('expiry is inclusive of the whole expiry month (UTC)', () => {
    assert.equal(isCardExpired(2, 2030, new Date(Date.UTC(2030, 1, 28, 23, 59, 59))), false);
    assert.equal(isCardExpired(2, 2030, new Date(Date.UTC(2030, 2, 1))), true);
    assert.equal(isCardExpired(12, 2030, new Date(Date.UTC(2030, 11, 31, 12))), false);
    assert.equal(isCardExpired(12, 2030, new Date(Date.UTC(2031, 0, 1))), true);
  });

  test('masking keeps the leading six and the trailing four digits', () => {
    assert.equal(maskCardNumber('411111', '1111'), '411111******1111');
  });

  test('the BIN table: the longest prefix wins; schemes from their ranges; unknown otherwise', () => {
    const cases: Array<[string, string, string, string]> = [
      ['4242424242424242', 'VISA', 'CREDIT', 'Paysail Test Bank'],
      ['4000056655665556', 'VISA', 'DEBIT', 'Harbor Savings Bank'],
      ['4100000000000019', 'VISA', 'CREDIT', 'Northwind Credit Union'],
      ['4917610000000000', 'VISA', 'CREDIT', 'Sandbox Visa Issuer'],
      ['5555555555554444', 'MASTERCARD', 'CREDIT', 'Paysail Test Bank'],
      ['5105105105105100', 'MASTERCARD', 'CREDIT', 'Sandbox Mastercard Issuer'],
      ['2720990000000000', 'MASTERCARD', 'CREDIT', 'Sandbox Mastercard Issuer'],
      ['2721000000000000', 'UNKNOWN', 'CREDIT', 'Unknown issuer'],
      ['378282246310005', 'AMEX', 'CREDIT', 'American Express Sandbox'],
      ['6445644564456445', 'DISCOVER', 'CREDIT', 'Discover Sandbox Bank'],
      ['3589000000000000', 'JCB', 'CREDIT', 'JCB Sandbox Issuer'],
      ['30569309025904', 'DINERS', 'CREDIT', 'Diners Club Sandbox'],
      ['6200000000000005', 'UNIONPAY', 'DEBIT', 'UnionPay Sandbox Issuer'],
      ['1234567812345670', 'UNKNOWN', 'CREDIT', 'Unknown issuer'],
    ];
    for (const [number, scheme, cardType, issuer] of cases) {
      assert.deepEqual(lookupBin(number), { scheme, cardType, issuer }, number);
    }
  });
});

describe('the sandbox card processor (real database)', () => {
  let database: Database;
  let clock: TestClock;
  let processor: SandboxCardProcessor;
  let counter = 0;

  before(async () => {
    database = await openTestDatabase();
    clock = new TestClock(Date.UTC(2027, 5, 15, 12));
    processor = createSandboxCardProcessor({ database, clock });
  });
  after(async () => database.close());

  function card(number: string, overrides: Partial<CardDetails> = {}): CardDetails {
    return { number, expMonth: 12, expYear: 2029, cvc: '123', cardholderName: 'Test Holder', ...overrides };
  }

  /** What the sandbox hosted card form does: create the payment session, then confirm it with the card typed in. */
  async function charge(input: { paymentId: string; livemode: boolean; amount: number; currency: string; card: CardDetails; saveCard: boolean }): Promise<ChargeResult> {
    await processor.createPayment({ paymentId: input.paymentId, livemode: input.livemode, amount: input.amount, currency: input.currency, saveCard: input.saveCard });
    const result = await processor.confirmWithCard({ paymentId: input.paymentId, livemode: input.livemode, card: input.card });
    assert.ok(result, 'a created payment can be confirmed');
    return result;
  }

  function paymentId(): string {
    counter += 1;
    return `pay_test${String(counter).padStart(32, '0')}`;
  }

  async function recordsMentioning(value: string): Promise<number> {
    const rows = await queryRows<{ count: number }>(database.db, sql`select count(*)::int as count from sandbox_provider_records where data::text like ${`%${value}%`}`);
    return rows[0]?.count ?? 0;
  }

  test('test cards decide the outcome; successes carry the card description and network transaction ids', async () => {
    const expected: Array<[string, string]> = [
      ['4242424242424242', 'SUCCEEDED'],
      ['5555555555554444', 'SUCCEEDED'],
      ['4000056655665556', 'SUCCEEDED'],
      ['4000000000000002', 'card_declined'],
      ['4000000000009995', 'insufficient_funds'],
      ['4000000000000069', 'expired_card'],
      ['4000000000000127', 'incorrect_cvc'],
      ['4100000000000019', 'SUCCEEDED'],
      ['4000000000005126', 'SUCCEEDED'],
      ['4111111111111111', 'SUCCEEDED'],
    ];
    for (const [number, outcome] of expected) {
      const result = await charge({ paymentId: paymentId(), livemode: false, amount: 100, currency: 'USD', card: card(number), saveCard: false });
      assert.equal(result.status === 'SUCCEEDED' ? 'SUCCEEDED' : result.declineReason, outcome, number);
      if (result.status === 'SUCCEEDED') {
        assert.equal(result.card.bin, number.slice(0, 6));
        assert.equal(result.card.last4, number.slice(-4));
        assert.equal(result.token, null);
        assert.match(result.processorReference, /^sbxch_[0-9a-f]{24}$/);
        if (result.card.scheme === 'MASTERCARD') {
          assert.match(result.networkTransactionId, /^[A-Z0-9]{9}\d{4}$/);
        } else {
          assert.match(result.networkTransactionId, /^\d{15}$/);
        }
      }
      assert.equal(await recordsMentioning(number), 0, 'no record holds the card number');
    }
  });

  test('idempotent by payment id: a retry returns the first result, even with another card', async () => {
    const id = paymentId();
    const first = await charge({ paymentId: id, livemode: false, amount: 100, currency: 'USD', card: card('4242424242424242'), saveCard: false });
    const retry = await charge({ paymentId: id, livemode: false, amount: 100, currency: 'USD', card: card('4000000000000002'), saveCard: false });
    assert.deepEqual(retry, first);
    assert.deepEqual(await processor.retrievePayment({ paymentId: id, livemode: false }), first);
    assert.equal(await processor.retrievePayment({ paymentId: paymentId(), livemode: false }), null);
    const concurrent = paymentId();
    const results = await Promise.all([0, 1, 2].map(() => charge({ paymentId: concurrent, livemode: false, amount: 100, currency: 'USD', card: card('4242424242424242'), saveCard: false })));
    assert.deepEqual(results[1], results[0]);
    assert.deepEqual(results[2], results[0]);
  });

  test('expired cards and a CVC of the wrong length for the scheme are declined', async () => {
    const expired = await charge({ paymentId: paymentId(), livemode: false, amount: 1, currency: 'USD', card: card('4242424242424242', { expMonth: 5, expYear: 2027 }), saveCard: false });
    assert.deepEqual(expired.status === 'DECLINED' && expired.declineReason, 'expired_card');
    const amexShort = await charge({ paymentId: paymentId(), livemode: false, amount: 1, currency: 'USD', card: card('378282246310005', { cvc: '123' }), saveCard: false });
    assert.equal(amexShort.status === 'DECLINED' && amexShort.declineReason, 'incorrect_cvc');
    const visaLong = await charge({ paymentId: paymentId(), livemode: false, amount: 1, currency: 'USD', card: card('4242424242424242', { cvc: '1234' }), saveCard: false });
    assert.equal(visaLong.status === 'DECLINED' && visaLong.declineReason, 'incorrect_cvc');
    const luhn = await charge({ paymentId: paymentId(), livemode: false, amount: 1, currency: 'USD', card: card('4242424242424241'), saveCard: false });
    assert.equal(luhn.status === 'DECLINED' && luhn.declineReason, 'incorrect_number');
  });

  test('saved cards: the token keeps the description and test behaviour, never the number; renewals follow the behaviour', async () => {
    const saved = await charge({ paymentId: paymentId(), livemode: false, amount: 100, currency: 'USD', card: card('4242424242424242'), saveCard: true });
    assert.equal(saved.status, 'SUCCEEDED');
    const token = saved.status === 'SUCCEEDED' ? saved.token : null;
    assert.match(String(token), /^sbxtok_/);
    const renewal = await processor.chargeSaved({ paymentId: paymentId(), livemode: false, amount: 100, currency: 'USD', token: String(token) });
    assert.equal(renewal.status, 'SUCCEEDED');
    assert.equal(renewal.status === 'SUCCEEDED' && renewal.token, null);

    const fraudSaved = await charge({ paymentId: paymentId(), livemode: false, amount: 100, currency: 'USD', card: card('4100000000000019'), saveCard: true });
    const fraudToken = fraudSaved.status === 'SUCCEEDED' ? String(fraudSaved.token) : '';
    const fraudRenewalId = paymentId();
    assert.equal((await processor.chargeSaved({ paymentId: fraudRenewalId, livemode: false, amount: 100, currency: 'USD', token: fraudToken })).status, 'SUCCEEDED');
    const signals = await queryRows<{ count: number }>(database.db, sql`select count(*)::int as count from jobs where queue = 'card-processor.sandbox-fraud-signal' and dedupe_key = ${`card-processor.sandbox-fraud-signal:${fraudRenewalId}`}`);
    assert.equal(signals[0]?.count, 1, 'the fraud card keeps its behaviour as a token');

    const declinedSave = await charge({ paymentId: paymentId(), livemode: false, amount: 100, currency: 'USD', card: card('4000000000000002'), saveCard: true });
    assert.equal(declinedSave.status === 'DECLINED' && declinedSave.declineReason, 'card_declined');

    clock.set(Date.UTC(2030, 0, 1));
    const afterExpiry = await processor.chargeSaved({ paymentId: paymentId(), livemode: false, amount: 100, currency: 'USD', token: String(token) });
    assert.equal(afterExpiry.status === 'DECLINED' && afterExpiry.declineReason, 'expired_card');
    clock.set(Date.UTC(2027, 5, 15, 12));
    const unknown = await processor.chargeSaved({ paymentId: paymentId(), livemode: false, amount: 100, currency: 'USD', token: 'sbxtok_unknown' });
    assert.equal(unknown.status === 'DECLINED' && unknown.declineReason, 'invalid_token');
    assert.equal(await recordsMentioning('4242424242424242'), 0);
    assert.equal(await recordsMentioning('4100000000000019'), 0);
  });

  test('live charges: the sandbox refuses them; the router answers a clear FORBIDDEN without a live processor', async () => {
    await assert.rejects(charge({ paymentId: paymentId(), livemode: true, amount: 1, currency: 'USD', card: card('4242424242424242'), saveCard: false }), /does not take live charges/);
    const router = createProcessorsByMode({ sandbox: processor, live: null });
    assert.equal(router.isAvailable(true), false);
    assert.equal(router.isAvailable(false), true);
    assert.equal(router.processorName(false), 'sandbox-card');
    await assert.rejects(router.chargeSaved({ paymentId: paymentId(), livemode: true, amount: 1, currency: 'USD', token: 'x' }), (error: Error & { code?: string }) => error.code === 'FORBIDDEN' && /no live card processor is configured/.test(error.message));
    assert.equal(router.cardForm(true), null, 'no card form in live mode');
    await assert.rejects(router.createPayment({ paymentId: paymentId(), livemode: true, amount: 1, currency: 'USD', saveCard: false }), /no live card processor is configured/);
    const id = paymentId();
    const session = await router.createPayment({ paymentId: id, livemode: false, amount: 1, currency: 'USD', saveCard: false });
    assert.equal(session.clientSecret, null);
    const sandboxResult = await router.cardForm(false)?.confirmWithCard({ paymentId: id, livemode: false, card: card('4242424242424242') });
    assert.equal(sandboxResult?.status, 'SUCCEEDED');
    assert.equal(sandboxResult?.status === 'SUCCEEDED' && sandboxResult.processorReference.startsWith('sbxch_'), true);
    assert.equal(await processor.confirmWithCard({ paymentId: paymentId(), livemode: false, card: card('4242424242424242') }), null, 'a payment never created cannot be confirmed');
  });
  test('payment sessions: created once, PENDING until confirmed; a cancel settles an unconfirmed one as declined, and loses to a confirmation', async () => {
    const id = paymentId();
    assert.equal(await processor.retrievePayment({ paymentId: id, livemode: false }), null, 'never created');
    const first = await processor.createPayment({ paymentId: id, livemode: false, amount: 700, currency: 'EUR', saveCard: false });
    const again = await processor.createPayment({ paymentId: id, livemode: false, amount: 700, currency: 'EUR', saveCard: false });
    assert.deepEqual(again, first);
    assert.match(first.processorReference, /^sbxpi_[0-9a-f]{24}$/);
    assert.deepEqual(await processor.retrievePayment({ paymentId: id, livemode: false }), { status: 'PENDING', processorReference: first.processorReference });
    const canceled = await processor.cancelPayment({ paymentId: id, livemode: false });
    assert.deepEqual(canceled, { status: 'DECLINED', declineReason: 'processing_error', card: null });
    assert.deepEqual(await processor.confirmWithCard({ paymentId: id, livemode: false, card: card('4242424242424242') }), canceled, 'a canceled payment stays canceled');

    const confirmedFirst = paymentId();
    await processor.createPayment({ paymentId: confirmedFirst, livemode: false, amount: 700, currency: 'EUR', saveCard: false });
    const confirmed = await processor.confirmWithCard({ paymentId: confirmedFirst, livemode: false, card: card('5555555555554444') });
    assert.equal(confirmed?.status, 'SUCCEEDED');
    assert.deepEqual(await processor.cancelPayment({ paymentId: confirmedFirst, livemode: false }), confirmed, 'the processor answers the payment as it is');
  });

  test('refunds: idempotent per refund id, PENDING until the delay has passed; the 5126 card succeeds but its refunds fail', async () => {
    const delayed = createSandboxCardProcessor({ database, clock, refundDelayMs: 5000 });
    const paid = paymentId();
    await delayed.createPayment({ paymentId: paid, livemode: false, amount: 1000, currency: 'USD', saveCard: false });
    assert.equal((await delayed.confirmWithCard({ paymentId: paid, livemode: false, card: card('4242424242424242') }))?.status, 'SUCCEEDED');
    assert.equal(await delayed.retrieveRefund({ refundId: 're_test_1', livemode: false }), null);
    const pending = await delayed.refund({ refundId: 're_test_1', paymentId: paid, livemode: false, amount: 400 });
    assert.equal(pending.status, 'PENDING');
    assert.match(pending.processorReference, /^sbxre_[0-9a-f]{24}$/);
    assert.deepEqual(await delayed.refund({ refundId: 're_test_1', paymentId: paid, livemode: false, amount: 400 }), pending, 'a retry is the same refund');
    clock.advance(5000);
    assert.deepEqual(await delayed.retrieveRefund({ refundId: 're_test_1', livemode: false }), { status: 'SUCCEEDED', processorReference: pending.processorReference });
    await assert.rejects(delayed.refund({ refundId: 're_test_2', paymentId: paid, livemode: false, amount: 1001 }), /not within/);
    await assert.rejects(delayed.refund({ refundId: 're_test_3', paymentId: paymentId(), livemode: false, amount: 1 }), /has not succeeded/);

    const failing = paymentId();
    await delayed.createPayment({ paymentId: failing, livemode: false, amount: 1000, currency: 'USD', saveCard: false });
    assert.equal((await delayed.confirmWithCard({ paymentId: failing, livemode: false, card: card('4000000000005126') }))?.status, 'SUCCEEDED');
    assert.equal((await delayed.refund({ refundId: 're_test_4', paymentId: failing, livemode: false, amount: 1000 })).status, 'PENDING');
    clock.advance(5000);
    assert.deepEqual(await delayed.retrieveRefund({ refundId: 're_test_4', livemode: false }), { status: 'FAILED', processorReference: (await delayed.retrieveRefund({ refundId: 're_test_4', livemode: false }))?.processorReference, failureReason: 'declined_by_issuer' });
    await assert.rejects(delayed.refund({ refundId: 're_test_5', paymentId: paid, livemode: true, amount: 1 }), /does not take live/);
    clock.set(Date.UTC(2027, 5, 15, 12));
  });
});
