import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Badge } from './components.tsx';
import { payoutSubStatusInWords, statusInWords } from './status-words.ts';

test('statuses read as words; an unknown code still reads as words, never as a raw code', () => {
  assert.equal(statusInWords('NEEDS_RESPONSE'), 'Needs your response');
  assert.equal(statusInWords('PROCESSED'), 'Paid out');
  assert.equal(payoutSubStatusInWords('AWAITING_RELEASE'), 'Waiting for your release');
  assert.equal(payoutSubStatusInWords('PAYOUT_REJECTED'), 'Rejected by the bank');
  assert.equal(statusInWords('SOME_NEW_STATE'), 'Some new state');
});

test('a badge shows the words and keeps the code in its tooltip', async () => {
  const html = String(await Badge({ value: 'PAST_DUE' }));
  assert.match(html, /<span class="badge bad" title="Status code: PAST_DUE" data-code="PAST_DUE">Past due<\/span>/);
});
