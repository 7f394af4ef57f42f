import { createHash } from 'node:crypto';
import { base58 } from '@scure/base';
import type { CryptoNetwork } from '../destinations.ts';

/** The built-in sandbox rail (sandbox.ts): its payouts move nothing, on any chain. */
export const sandboxRailName = 'sandbox-rail';

/**
 * Block explorers, per network: mainnet explorers for live payouts, the testnet explorers for
 * sandbox payouts paid on a testnet (Circle's test environment). The built-in sandbox rail's hashes
 * are on no chain and get no explorer (decision 0037).
 */
const explorers: Record<CryptoNetwork, { live: (hash: string) => string; test: (hash: string) => string }> = {
  ETHEREUM: { live: (hash) => `https://etherscan.io/tx/${hash}`, test: (hash) => `https://sepolia.etherscan.io/tx/${hash}` },
  POLYGON: { live: (hash) => `https://polygonscan.com/tx/${hash}`, test: (hash) => `https://amoy.polygonscan.com/tx/${hash}` },
  BASE: { live: (hash) => `https://basescan.org/tx/${hash}`, test: (hash) => `https://sepolia.basescan.org/tx/${hash}` },
  SOLANA: { live: (hash) => `https://solscan.io/tx/${hash}`, test: (hash) => `https://solscan.io/tx/${hash}?cluster=devnet` },
};

/**
 * The explorer page of a transaction, or null when the rail that paid it is the built-in sandbox
 * rail (its hash is on no chain: a real explorer would show "not found", or someone else's
 * transaction). `encodeURIComponent` keeps whatever a rail reported inside the path.
 */
export function explorerUrl(network: CryptoNetwork, transactionHash: string, paidBy: { livemode: boolean; rail: string | null }): string | null {
  if (!paidBy.livemode && (paidBy.rail === null || paidBy.rail === sandboxRailName)) {
    return null;
  }
  const explorer = explorers[network];
  return (paidBy.livemode ? explorer.live : explorer.test)(encodeURIComponent(transactionHash));
}

/**
 * The sandbox rail's transaction hash for a crypto payout: derived from our payout attempt id, so
 * the same payout always shows the same hash. Shaped like the network's own (0x + 64 hex on EVM
 * chains, a base58 signature on Solana) but it is not on any chain: sandbox only.
 */
export function sandboxTransactionHash(network: CryptoNetwork, payoutId: string): string {
  const digest = createHash('sha512').update(`paysail-sandbox-tx:${payoutId}`).digest();
  return network === 'SOLANA' ? base58.encode(digest) : `0x${digest.subarray(0, 32).toString('hex')}`;
}

/** Where the operator sees a rail's payout: the Increase dashboard's transfer page; null for rails without one (Circle: the explorer link of the hash). */
export function railReferenceUrl(rail: string, reference: string): string | null {
  if (rail === 'increase' && reference.startsWith('ach_transfer_')) {
    return `https://dashboard.increase.com/transfers/${encodeURIComponent(reference)}`;
  }
  return null;
}
