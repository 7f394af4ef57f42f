import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { mapOnfidoResult, onfidoOutcomeTable, type OnfidoResult } from './mapping.ts';

const identity = (result: 'clear' | 'consider' | 'unidentified', subResult?: 'rejected' | 'suspected') => ({ name: 'identity_enhanced' as const, status: 'complete' as const, result, ...(subResult ? { sub_result: subResult } : {}) });

/** One case per row of the table, in its order: each must be decided by exactly that row. */
const cases: Array<{ row: string; input: OnfidoResult; expected: string }> = [
  { row: 'check still running', input: { check: { status: 'in_progress' }, reports: [], kind: 'DATA' }, expected: 'PENDING' },
  { row: 'check withdrawn at Onfido', input: { check: { status: 'withdrawn' }, reports: [], kind: 'DATA' }, expected: 'REVIEW' },
  { row: 'complete and clear', input: { check: { status: 'complete', result: 'clear' }, reports: [identity('clear')], kind: 'DATA' }, expected: 'APPROVED' },
  { row: 'a report rejected outright', input: { check: { status: 'complete', result: 'consider' }, reports: [{ name: 'document', status: 'complete', result: 'consider', sub_result: 'rejected' }], kind: 'DOCUMENTS' }, expected: 'REJECTED' },
  { row: 'data check: identity not found in data sources', input: { check: { status: 'complete', result: 'consider' }, reports: [identity('unidentified')], kind: 'DATA' }, expected: 'STEP_UP' },
  { row: 'complete, consider', input: { check: { status: 'complete', result: 'consider' }, reports: [identity('consider', 'suspected')], kind: 'DATA' }, expected: 'REVIEW' },
  { row: 'any other state', input: { check: { status: '11184809' }, reports: [], kind: 'DATA' }, expected: 'REVIEW' },
];

describe('Onfido result mapping (one test per row of onfidoOutcomeTable)', () => {
  test('every row has a case, in order', () => {
    assert.deepEqual(
      cases.map((entry) => entry.row),
      onfidoOutcomeTable.map((row) => row.name),
    );
  });

  for (const entry of cases) {
    test(`${entry.row} → ${entry.expected}`, () => {
      const decidingRow = onfidoOutcomeTable.find((row) => row.when(entry.input));
      assert.equal(decidingRow?.name, entry.row, 'decided by its own row');
      const outcome = mapOnfidoResult(entry.input);
      assert.equal(outcome.status, entry.expected);
      if (outcome.status !== 'PENDING' && outcome.status !== 'APPROVED') {
        assert.match(outcome.reason, /^onfido: /);
      }
    });
  }

  test('other states keep waiting: awaiting_applicant, paused, reopened', () => {
    for (const status of ['awaiting_applicant', 'paused', 'reopened'] as const) {
      assert.equal(mapOnfidoResult({ check: { status }, reports: [], kind: 'DATA' }).status, 'PENDING', status);
    }
  });

  test('an unidentified identity on a document check is a review, not another step-up', () => {
    assert.equal(mapOnfidoResult({ check: { status: 'complete', result: 'consider' }, reports: [identity('unidentified')], kind: 'DOCUMENTS' }).status, 'REVIEW');
  });

  test('the breakdown names each report and its result, nothing else', () => {
    const outcome = mapOnfidoResult({ check: { status: 'complete', result: 'consider' }, reports: [identity('consider', 'suspected')], kind: 'DATA' });
    assert.equal(outcome.status, 'REVIEW');
    assert.deepEqual(outcome.status === 'REVIEW' ? outcome.breakdown : null, { identity_enhanced: 'consider/suspected' });
  });
});
