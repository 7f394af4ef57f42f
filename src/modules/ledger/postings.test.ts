import assert from 'node:assert/strict';
import { test } from 'node:test';
import { entriesOf, InvalidPostingError, maxPostingAmount } from './postings.ts';

test('a posting becomes two entries that sum to zero, ordered by account kind', () => {
  assert.deepEqual(entriesOf([{ source: 'reserved', destination: 'available', amount: 500 }]), [
    { account: 'available', amount: 500 },
    { account: 'reserved', amount: -500 },
  ]);
});

test('several postings net per account; a chain through an account cancels out there', () => {
  const entries = entriesOf([
    { source: 'available', destination: 'reserved', amount: 300 },
    { source: 'reserved', destination: 'in_flight', amount: 300 },
  ]);
  assert.deepEqual(entries, [
    { account: 'available', amount: -300 },
    { account: 'in_flight', amount: 300 },
  ]);
  assert.equal(
    entries.reduce((sum, entry) => sum + entry.amount, 0),
    0,
  );
});

test('invalid postings are refused before anything is written', () => {
  for (const postings of [
    [],
    [{ source: 'available', destination: 'available', amount: 1 }],
    [{ source: 'available', destination: 'reserved', amount: 0 }],
    [{ source: 'available', destination: 'reserved', amount: -5 }],
    [{ source: 'available', destination: 'reserved', amount: 1.5 }],
    [{ source: 'available', destination: 'reserved', amount: maxPostingAmount + 1 }],
    [
      { source: 'available', destination: 'reserved', amount: 5 },
      { source: 'reserved', destination: 'available', amount: 5 },
    ],
  ] as const) {
    assert.throws(() => entriesOf(postings), InvalidPostingError, JSON.stringify(postings));
  }
});
