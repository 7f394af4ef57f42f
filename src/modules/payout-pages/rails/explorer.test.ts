import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { explorerUrl, sandboxRailName, sandboxTransactionHash } from './explorer.ts';

const hash = `0x${'ab'.repeat(32)}`;

describe('explorer links (decision 0037)', () => {
  test('live payouts: the mainnet explorer of the network', () => {
    assert.equal(explorerUrl('ETHEREUM', hash, { livemode: true, rail: 'circle' }), `https://etherscan.io/tx/${hash}`);
    assert.equal(explorerUrl('BASE', hash, { livemode: true, rail: 'circle' }), `https://basescan.org/tx/${hash}`);
    assert.equal(explorerUrl('SOLANA', 'sig', { livemode: true, rail: 'circle' }), 'https://solscan.io/tx/sig');
  });

  test("sandbox payouts paid on a testnet (Circle's test environment): the testnet explorer", () => {
    assert.equal(explorerUrl('ETHEREUM', hash, { livemode: false, rail: 'circle' }), `https://sepolia.etherscan.io/tx/${hash}`);
    assert.equal(explorerUrl('POLYGON', hash, { livemode: false, rail: 'circle' }), `https://amoy.polygonscan.com/tx/${hash}`);
    assert.equal(explorerUrl('SOLANA', 'sig', { livemode: false, rail: 'circle' }), 'https://solscan.io/tx/sig?cluster=devnet');
  });

  test("the built-in sandbox rail's hashes are on no chain: no explorer, whatever the network", () => {
    for (const network of ['ETHEREUM', 'POLYGON', 'BASE', 'SOLANA'] as const) {
      assert.equal(explorerUrl(network, sandboxTransactionHash(network, 'payout_attempt_1'), { livemode: false, rail: sandboxRailName }), null);
      assert.equal(explorerUrl(network, hash, { livemode: false, rail: null }), null, 'an unknown sandbox rail is not assumed to be on chain');
    }
  });

  test('a reported hash stays inside the path', () => {
    assert.equal(explorerUrl('ETHEREUM', '../x?y', { livemode: true, rail: 'circle' }), 'https://etherscan.io/tx/..%2Fx%3Fy');
  });

  test('sandbox hashes are deterministic and shaped like the network’s', () => {
    assert.equal(sandboxTransactionHash('BASE', 'a'), sandboxTransactionHash('BASE', 'a'));
    assert.notEqual(sandboxTransactionHash('BASE', 'a'), sandboxTransactionHash('BASE', 'b'));
    assert.match(sandboxTransactionHash('BASE', 'a'), /^0x[0-9a-f]{64}$/);
    assert.match(sandboxTransactionHash('SOLANA', 'a'), /^[1-9A-HJ-NP-Za-km-z]{80,90}$/);
  });
});
