import { randomUUID } from 'node:crypto';
import type { Answer } from './processes-support.ts';

/** How the crash harness (crash.ts) reads answers, and asks again while a resource is held (crash-answers.test.ts). */

/**
 * How the driver reads an operation's final answer. `committedBefore`: a retry (after an
 * unanswered attempt) that finds its own first attempt done — the create's natural key exists
 * (`409 DUPLICATE_*`), or the follow-up's state has moved on (`409 INVALID_STATE`). `held`: a
 * `409 INVALID_STATE` with `Retry-After` says an attempt is still in progress on the resource (a
 * card payment whose API process died between claiming the page and settling it; the resolve job
 * settles it later) — nothing is decided yet, so it is neither acknowledged nor committed.
 */
export type AnswerClass = 'acknowledged' | 'committedBefore' | 'held' | 'failed';

export function classifyAnswer(answer: Answer): AnswerClass {
  const code = typeof answer.body.errorCode === 'string' ? answer.body.errorCode : '';
  if (answer.status === 200) {
    return 'acknowledged';
  }
  if (answer.status === 409 && code === 'INVALID_STATE' && answer.retryAfterSeconds !== undefined) {
    return 'held';
  }
  if (
    answer.attempts > 1 &&
    answer.status === 409 &&
    (code === 'DUPLICATE_REFERENCE_ID' || code === 'DUPLICATE_CLIENT_REFERENCE_ID' || code === 'INVALID_STATE' || code === 'IDEMPOTENCY_KEY_RESPONSE_LOST')
  ) {
    return 'committedBefore';
  }
  return 'failed';
}

/**
 * Sends a request (`send` retries an unanswered one with the key it is given) and, while the answer
 * is `held` (see classifyAnswer), waits its Retry-After and asks again with a **new**
 * Idempotency-Key: the held 409 is the key's stored answer and would be replayed as it is. This is
 * safe for the pay operations: a page that is PAID, or held, refuses another attempt, so the new key
 * either finds the first attempt's result (`409 INVALID_STATE` already PAID → committedBefore) or,
 * if the first attempt never reached the processor and was declined, pays once. `attempts` in the
 * answer counts every send, so a first unanswered attempt still makes a later 409 `committedBefore`.
 */
export async function callUntilNotHeld(send: (idempotencyKey: string) => Promise<Answer>, wait: (ms: number) => Promise<void>, deadline: number): Promise<Answer> {
  let answer = await send(randomUUID());
  let attempts = answer.attempts;
  while (classifyAnswer(answer) === 'held' && Date.now() < deadline) {
    await wait(Math.max(1, answer.retryAfterSeconds ?? 1) * 1000);
    answer = await send(randomUUID());
    attempts += answer.attempts;
  }
  return { ...answer, attempts };
}

/** What the harness reads of a payment page: its status, and whether a card payment is still in progress on it. */
export interface PageState {
  status: string;
  inProgress: boolean;
}

/**
 * A pay whose answer only says that an earlier attempt committed something (`committedBefore`:
 * `IDEMPOTENCY_KEY_RESPONSE_LOST`, or a retried `409 INVALID_STATE`) is looked up, as an integrator
 * would settle an unknown outcome: the page once no card payment is in progress on it. PAID: the
 * pay is done (the answer stays). Still CREATED: what committed was an attempt that ended without a
 * charge (the resolve job settles an attempt whose process died before the processor saw it as
 * declined, and marks its Idempotency-Key with that settlement), so the pay is made again with
 * `pay` (new keys), and `onRepay` is told why. `attempts` counts every send.
 */
export async function payUntilSettled(
  pay: () => Promise<Answer>,
  pageState: () => Promise<PageState | undefined>,
  wait: (ms: number) => Promise<void>,
  deadline: number,
  onRepay: (answer: Answer, state: PageState) => void,
): Promise<Answer> {
  let answer = await pay();
  let attempts = answer.attempts;
  while (classifyAnswer(answer) === 'committedBefore' && Date.now() < deadline) {
    const state = await pageState();
    if (state?.inProgress) {
      await wait(1_000);
      continue;
    }
    if (state?.status !== 'CREATED') {
      break;
    }
    onRepay(answer, state);
    answer = await pay();
    attempts += answer.attempts;
  }
  return { ...answer, attempts };
}
