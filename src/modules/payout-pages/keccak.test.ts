import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { keccak256Hex, keccakSponge } from './keccak.ts';

test('keccak-256 test vectors', () => {
  assert.equal(keccak256Hex(''), 'c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470');
  assert.equal(keccak256Hex('abc'), '4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45');
  assert.equal(keccak256Hex('The quick brown fox jumps over the lazy dog'), '4d741b6f1eb29cb2a9b9911c82f56fa8d73b04959d3d9d222895df6c0b28aa15');
});

test('the same permutation with the FIPS 202 domain byte equals OpenSSL sha3-256 (all block boundaries)', () => {
  for (const length of [0, 1, 55, 135, 136, 137, 271, 272, 273, 1000]) {
    const input = randomBytes(length);
    const ours = Buffer.from(keccakSponge(input, { rate: 136, domain: 0x06, outputBytes: 32 })).toString('hex');
    assert.equal(ours, createHash('sha3-256').update(input).digest('hex'), `length ${length}`);
  }
});
