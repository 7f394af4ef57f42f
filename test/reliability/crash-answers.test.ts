import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { payments, subscriptions } from '../../src/db/schema/index.ts';
import { createTestContext, type TestContext, type TestMerchant } from '../helpers/context.ts';
import { cardBody, createPage, testCards } from '../helpers/payment-pages.ts';
import { callUntilNotHeld, classifyAnswer } from './crash.ts';
import { payUntilSettled } from './crash-answers.ts';
import type { Answer } from './processes-support.ts';

/**
 * Regression for the crash harness failure "the paid subscription page … has a subscription"
 * (seed 1857051890, PostgreSQL, loaded machine). The sequence: the API process was SIGKILLed after
 * the pay request claimed the page (payment PROCESSING, page held, resolve job due in 2 min) and
 * before it settled; the retry with the same Idempotency-Key ran again after the 60 s in-progress
 * lease and got `409 INVALID_STATE` "a card payment … is in progress" (Retry-After: 2). The harness
 * read every retried 409 INVALID_STATE as "my first attempt committed", looked the subscription up
 * by page_id and found none: the attempt was not settled yet. The service was right; the harness
 * now treats that answer as "not decided yet" and asks again (new key) until the page is settled.
 *
 * In-process (createTestContext, real platform and database): the dying process is stood in for
 * by an onPaid hook that throws once, which rolls the settlement back and leaves exactly the
 * state the SIGKILL left (claim committed, payment PROCESSING, resolve job queued).
 */
describe('crash harness: reading a pay answer after the first attempt died between claim and settlement', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let dieOnce = false;

  before(async () => {
    context = await createTestContext();
    merchant = await context.createMerchant();
    context.platform.services.paymentPages.onPaid(() => {
      if (dieOnce) {
        dieOnce = false;
        throw new Error('the API process died here (test stand-in)');
      }
      return Promise.resolve(undefined);
    });
  });
  after(async () => context.close());

  /** What the harness's ApiClient does, in-process: an unanswered (5xx) attempt is retried with the same key. */
  function sender(pageId: string, seen: Array<Answer & { subscriptionsOfPage: number }>) {
    return async (idempotencyKey: string): Promise<Answer> => {
      for (let attempts = 1; ; attempts += 1) {
        const response = await context.request({
          method: 'POST',
          url: `/v1/test_helpers/payment_pages/${pageId}/pay?livemode=false`,
          apiKey: merchant.apiKey,
          body: cardBody(testCards.visaCredit),
          headers: { 'idempotency-key': idempotencyKey },
        });
        if (response.statusCode >= 500 && attempts < 5) {
          continue;
        }
        const retryAfter = response.headers['retry-after'];
        const answer: Answer = {
          status: response.statusCode,
          body: JSON.parse(response.body) as Record<string, unknown>,
          attempts,
          upstream: undefined,
          retryAfterSeconds: retryAfter === undefined ? undefined : Number(retryAfter),
        };
        const rows = await context.database.db.select({ id: subscriptions.id }).from(subscriptions).where(eq(subscriptions.pageId, pageId));
        seen.push({ ...answer, subscriptionsOfPage: rows.length });
        return answer;
      }
    };
  }

  test('the held 409 is not read as committed; asking again with a new key until settled finds the PAID page and its subscription', async () => {
    const page = await createPage(context, merchant, { amount: 1_500, currency: 'USD', subscription: { productId: 'prod_pro', interval: 'MONTH' } });
    const seen: Array<Answer & { subscriptionsOfPage: number }> = [];
    const send = sender(page.id, seen);
    let waits = 0;
    // Waiting is simulated time: the resolve job is due 2 minutes after the claim.
    const wait = async (ms: number) => {
      waits += 1;
      context.clock.advance(ms);
      await context.drainJobs();
    };

    dieOnce = true;
    const answer = await callUntilNotHeld(send, wait, Date.now() + 60_000);

    // The exact answer CI saw: a retried pay answered 409 INVALID_STATE (Retry-After) while the
    // page had no subscription yet. The old rule counted it as committed; it is "held".
    const first = seen[0];
    assert.ok(first);
    assert.equal(first.attempts, 2, 'the first attempt went unanswered and was retried with its key');
    assert.equal(first.status, 409);
    assert.equal(first.body.errorCode, 'INVALID_STATE');
    assert.equal(first.retryAfterSeconds, 2);
    assert.equal(first.subscriptionsOfPage, 0, 'nothing is settled while the page is held');
    assert.equal(classifyAnswer(first), 'held');

    // Held answers were followed by asking again, until the resolve job had settled the attempt.
    assert.ok(waits >= 1 && seen.length === waits + 1, `asked again after each wait (${waits} waits, ${seen.length} answers)`);
    assert.ok(seen.slice(0, -1).every((candidate) => classifyAnswer(candidate) === 'held'));
    assert.equal(answer.status, 409);
    assert.equal(answer.body.errorCode, 'INVALID_STATE');
    assert.match(String(answer.body.errorMessage), /already PAID/);
    assert.equal(answer.retryAfterSeconds, undefined);
    assert.equal(answer.attempts, seen.reduce((sum, candidate) => sum + candidate.attempts, 0), 'every send is counted');
    assert.equal(classifyAnswer(answer), 'committedBefore');
    assert.equal(seen.at(-1)?.subscriptionsOfPage, 1, 'the committed attempt has its subscription');

    const charged = await context.database.db.select().from(payments).where(eq(payments.pageId, page.id));
    assert.deepEqual(
      charged.map((payment) => payment.status),
      ['SUCCEEDED'],
      'one charge: the held attempt, settled by the resolve job',
    );
  });

  test('the held 409 is the key’s stored answer: the same key replays it, so asking again needs a new key', async () => {
    const page = await createPage(context, merchant, { amount: 1_500, currency: 'USD', subscription: { productId: 'prod_pro', interval: 'MONTH' } });
    const seen: Array<Answer & { subscriptionsOfPage: number }> = [];
    const send = sender(page.id, seen);
    const key = randomUUID();
    dieOnce = true;
    const held = await send(key);
    assert.equal(classifyAnswer(held), 'held');
    context.clock.advance(2 * 60_000 + 1);
    await context.drainJobs();
    const replayed = await send(key);
    assert.equal(replayed.status, 409, 'still the stored 409 although the page is PAID now');
    assert.deepEqual(replayed.body, held.body);
    assert.equal(seen.at(-1)?.subscriptionsOfPage, 1);
    const fresh = await send(randomUUID());
    assert.match(String(fresh.body.errorMessage), /already PAID/);
  });

  test('classification: 200 acknowledged; retried DUPLICATE_* / INVALID_STATE without Retry-After committed; first-attempt 409 and 402 failed', () => {
    const answer = (status: number, errorCode: string | undefined, attempts: number, retryAfterSeconds?: number): Answer => ({
      status,
      body: errorCode ? { status: 'FAILED', errorCode, errorMessage: 'x' } : { status: 'SUCCESS', data: {} },
      attempts,
      upstream: undefined,
      retryAfterSeconds,
    });
    assert.equal(classifyAnswer(answer(200, undefined, 1)), 'acknowledged');
    assert.equal(classifyAnswer(answer(200, undefined, 3)), 'acknowledged');
    assert.equal(classifyAnswer(answer(409, 'DUPLICATE_CLIENT_REFERENCE_ID', 2)), 'committedBefore');
    assert.equal(classifyAnswer(answer(409, 'DUPLICATE_REFERENCE_ID', 2)), 'committedBefore');
    assert.equal(classifyAnswer(answer(409, 'INVALID_STATE', 2)), 'committedBefore');
    assert.equal(classifyAnswer(answer(409, 'INVALID_STATE', 2, 2)), 'held');
    assert.equal(classifyAnswer(answer(409, 'INVALID_STATE', 1, 2)), 'held');
    assert.equal(classifyAnswer(answer(409, 'INVALID_STATE', 1)), 'failed');
    assert.equal(classifyAnswer(answer(409, 'DUPLICATE_CLIENT_REFERENCE_ID', 1)), 'failed');
    assert.equal(classifyAnswer(answer(402, 'CARD_DECLINED', 2)), 'failed');
  });
});

describe('crash harness: a pay answered only "an earlier attempt committed" is looked up on its page', () => {
  const answer = (status: number, errorCode: string | undefined, attempts: number): Answer => ({
    status,
    body: errorCode ? { status: 'FAILED', errorCode, errorMessage: 'x' } : { status: 'SUCCESS', data: {} },
    attempts,
    upstream: undefined,
    retryAfterSeconds: undefined,
  });
  const noWait = () => Promise.resolve();

  test('the page still CREATED (the attempt ended without a charge): paid again, every send counted', async () => {
    const answers = [answer(409, 'IDEMPOTENCY_KEY_RESPONSE_LOST', 2), answer(200, undefined, 1)];
    const states = [{ status: 'CREATED', inProgress: true }, { status: 'CREATED', inProgress: false }];
    const repaid: string[] = [];
    const final = await payUntilSettled(
      () => Promise.resolve(answers.shift() ?? answer(500, 'INTERNAL', 1)),
      () => Promise.resolve(states.shift()),
      noWait,
      Date.now() + 60_000,
      (lost, state) => repaid.push(`${String(lost.body.errorCode)} ${state.status}`),
    );
    assert.equal(final.status, 200);
    assert.equal(final.attempts, 3);
    assert.deepEqual(repaid, ['IDEMPOTENCY_KEY_RESPONSE_LOST CREATED'], 'looked again while a payment was in progress, then paid once more');
    assert.equal(answers.length, 0);
  });

  test('the page PAID: the answer stands, nothing is sent again', async () => {
    let sends = 0;
    const final = await payUntilSettled(
      () => {
        sends += 1;
        return Promise.resolve(answer(409, 'IDEMPOTENCY_KEY_RESPONSE_LOST', 2));
      },
      () => Promise.resolve({ status: 'PAID', inProgress: false }),
      noWait,
      Date.now() + 60_000,
      () => assert.fail('a PAID page is not paid again'),
    );
    assert.equal(sends, 1);
    assert.equal(classifyAnswer(final), 'committedBefore');
  });

  test('a first answer that decides (200, or a failure) is not looked up', async () => {
    for (const first of [answer(200, undefined, 1), answer(402, 'CARD_DECLINED', 1)]) {
      const final = await payUntilSettled(
        () => Promise.resolve(first),
        () => assert.fail('no lookup'),
        noWait,
        Date.now() + 60_000,
        () => assert.fail('no second pay'),
      );
      assert.deepEqual(final, first);
    }
  });
});
