import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { allStates, findTransition, isFinal, isValidState, payoutPageActions, transitions, type KycStatus, type ReleaseMethod, type TransitionContext } from './states.ts';

/**
 * The expected machine, written out independently of states.ts as
 * `FROM/SUB action [guard] -> TO/SUB ledger email submits`. Every combination of state, action,
 * release method and KYC status is checked against it; anything not listed must be refused.
 */
const expected = `
CREATED/AWAITING_CUSTOMER confirm kyc=NOT_STARTED -> PENDING/KYC_REQUIRED - kycRequired -
CREATED/AWAITING_CUSTOMER confirm kyc=PENDING -> PENDING/KYC_IN_REVIEW - - -
CREATED/AWAITING_CUSTOMER confirm kyc=APPROVED -> PENDING/AWAITING_RELEASE - - -
CREATED/AWAITING_CUSTOMER confirm kyc=REJECTED -> FAILED/KYC_REJECTED release failed -
PENDING/KYC_REQUIRED kycSubmitted * -> PENDING/KYC_IN_REVIEW - - -
PENDING/KYC_REQUIRED kycApproved * -> PENDING/AWAITING_RELEASE - - -
PENDING/KYC_IN_REVIEW kycApproved * -> PENDING/AWAITING_RELEASE - - -
PENDING/KYC_REQUIRED kycRejected * -> FAILED/KYC_REJECTED release failed -
PENDING/KYC_IN_REVIEW kycRejected * -> FAILED/KYC_REJECTED release failed -
PENDING/AWAITING_RELEASE kycRestarted * -> PENDING/KYC_IN_REVIEW - - -
PENDING/AWAITING_RELEASE release release=MANUAL -> PROCESSING/SUBMITTED submit processing submits
PENDING/AWAITING_RELEASE autoRelease release=AUTOMATIC -> PROCESSING/SUBMITTED submit processing submits
CREATED/AWAITING_CUSTOMER cancel * -> CANCELED/MERCHANT_CANCELED release canceled -
PENDING/KYC_REQUIRED cancel * -> CANCELED/MERCHANT_CANCELED release canceled -
PENDING/KYC_IN_REVIEW cancel * -> CANCELED/MERCHANT_CANCELED release canceled -
PENDING/AWAITING_RELEASE cancel * -> CANCELED/MERCHANT_CANCELED release canceled -
CREATED/AWAITING_CUSTOMER decline * -> CANCELED/CUSTOMER_DECLINED release declined -
PENDING/KYC_REQUIRED decline * -> CANCELED/CUSTOMER_DECLINED release declined -
PENDING/KYC_IN_REVIEW decline * -> CANCELED/CUSTOMER_DECLINED release declined -
PENDING/AWAITING_RELEASE decline * -> CANCELED/CUSTOMER_DECLINED release declined -
CREATED/AWAITING_CUSTOMER expire * -> EXPIRED/NOT_COMPLETED release expired -
PROCESSING/SUBMITTED railPaid * -> PROCESSED/PAID settle processed -
PROCESSING/SUBMITTED railRejected * -> FAILED/PAYOUT_REJECTED return failed -
PROCESSED/PAID railReturned * -> FAILED/PAYOUT_RETURNED reverse returned -
FAILED/PAYOUT_REJECTED retry kyc=APPROVED -> PENDING/AWAITING_RELEASE reserve - -
FAILED/PAYOUT_REJECTED retry kyc=PENDING -> PENDING/KYC_IN_REVIEW reserve - -
FAILED/PAYOUT_REJECTED retry kyc=REJECTED -> FAILED/KYC_REJECTED - failed -
FAILED/PAYOUT_RETURNED retry kyc=APPROVED -> PENDING/AWAITING_RELEASE reserve - -
FAILED/PAYOUT_RETURNED retry kyc=PENDING -> PENDING/KYC_IN_REVIEW reserve - -
FAILED/PAYOUT_RETURNED retry kyc=REJECTED -> FAILED/KYC_REJECTED - failed -
`
  .trim()
  .split('\n')
  .map((line) => {
    const [from, action, guard, , to, ledger, email, submits] = line.split(' ');
    return { from, action, guard, to, ledger: ledger === '-' ? null : ledger, email: email === '-' ? null : email, submits: submits === 'submits' };
  });

const releaseMethods: ReleaseMethod[] = ['AUTOMATIC', 'MANUAL'];
const kycStatuses: KycStatus[] = ['NOT_STARTED', 'PENDING', 'APPROVED', 'REJECTED'];

function guardHolds(guard: string | undefined, context: TransitionContext): boolean {
  if (guard === '*') {
    return true;
  }
  const [name, value] = (guard ?? '').split('=');
  return name === 'kyc' ? context.kycStatus === value : context.releaseMethod === value;
}

describe('payout page transition table', () => {
  test('the table has exactly the expected rows', () => {
    assert.equal(transitions.length, expected.length);
  });

  for (const edge of expected) {
    test(`${edge.from} --${edge.action}${edge.guard === '*' ? '' : ` [${edge.guard}]`}--> ${edge.to}`, () => {
      const [status, subStatus] = (edge.from ?? '').split('/');
      let matched = 0;
      for (const releaseMethod of releaseMethods) {
        for (const kycStatus of kycStatuses) {
          const context = { releaseMethod, kycStatus };
          if (!guardHolds(edge.guard, context)) {
            continue;
          }
          const found = findTransition({ status, subStatus } as never, edge.action as never, context);
          assert.ok(found, `${edge.from} ${edge.action} allowed with ${releaseMethod}/${kycStatus}`);
          assert.equal(`${found.to.status}/${found.to.subStatus}`, edge.to);
          assert.equal(found.ledger, edge.ledger, 'ledger movement');
          assert.equal(found.email, edge.email, 'e-mail');
          assert.equal(found.submitsPayout, edge.submits, 'submits the payout');
          matched += 1;
        }
      }
      assert.ok(matched > 0);
    });
  }

  test('every other (state, action, context) combination is refused', () => {
    let refused = 0;
    for (const state of allStates) {
      for (const action of payoutPageActions) {
        for (const releaseMethod of releaseMethods) {
          for (const kycStatus of kycStatuses) {
            const context = { releaseMethod, kycStatus };
            const allowed = expected.some((edge) => edge.from === `${state.status}/${state.subStatus}` && edge.action === action && guardHolds(edge.guard, context));
            const found = findTransition(state, action, context);
            assert.equal(found !== null, allowed, `${state.status}/${state.subStatus} ${action} ${releaseMethod} ${kycStatus}`);
            if (!allowed) {
              refused += 1;
            }
          }
        }
      }
    }
    assert.ok(refused > 800);
  });

  test('every target is a valid state; final states are exactly FAILED/KYC_REJECTED, CANCELED, EXPIRED (a paid payout can still be returned, a rejected or returned one retried)', () => {
    for (const edge of transitions) {
      assert.ok(isValidState(edge.to.status, edge.to.subStatus));
      assert.ok(isValidState(edge.from.status, edge.from.subStatus));
    }
    assert.deepEqual(
      allStates.filter(isFinal).map((state) => `${state.status}/${state.subStatus}`),
      ['FAILED/KYC_REJECTED', 'CANCELED/CUSTOMER_DECLINED', 'CANCELED/MERCHANT_CANCELED', 'EXPIRED/NOT_COMPLETED'],
    );
    assert.equal(isValidState('PENDING', 'PAID'), false);
  });

  test('money is released exactly on the ways out before PROCESSING, and never moved twice on one path', () => {
    for (const edge of transitions) {
      const leavesBeforeProcessing = ['CREATED', 'PENDING'].includes(edge.from.status) && ['FAILED', 'CANCELED', 'EXPIRED'].includes(edge.to.status);
      assert.equal(edge.ledger === 'release', leavesBeforeProcessing, `${edge.action} from ${edge.from.status}`);
    }
  });
});
