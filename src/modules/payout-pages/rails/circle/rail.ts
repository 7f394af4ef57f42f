import type { Blockchain, initiateDeveloperControlledWalletsClient, Transaction } from '@circle-fin/developer-controlled-wallets';
import { v5 as uuidv5 } from 'uuid';
import { loadProviderPackage, withPlainErrors } from '../../../providers/index.ts';
import type { CryptoNetwork } from '../../destinations.ts';
import type { PayoutRail, PayoutRailListing, PayoutRailRecord, PayoutSubmission } from '../types.ts';
import { circleTransactionStatus } from './status.ts';

export const circleRailName = 'circle';
/** The rail of Circle's testnet keys (CIRCLE_TEST_*), paying sandbox-mode USDC payouts. */
export const circleTestRailName = 'circle-test';

export type CircleClient = ReturnType<typeof initiateDeveloperControlledWalletsClient>;

export interface CircleRailOptions {
  apiKey: string;
  entitySecret: string;
  walletIds: readonly string[];
  feeLevel: 'LOW' | 'MEDIUM' | 'HIGH';
  webhookSubscriptionId?: string | undefined;
  /** `https://api.circle.com` unless set (tests point it at the replica). */
  baseUrl?: string | undefined;
  environment: 'live' | 'test';
  /** The CIRCLE_TEST_* keys backing sandbox mode: rail `circle-test`, notifications at `/providers/circle-test/webhooks`. */
  backsSandbox?: boolean;
}

/** The official client: every Circle call goes through it (it encrypts the entity secret for each call that moves money). */
export function createCircleClient(options: CircleRailOptions): CircleClient {
  const { initiateDeveloperControlledWalletsClient: initiate } = loadProviderPackage('@circle-fin/developer-controlled-wallets');
  return initiate({ apiKey: options.apiKey, entitySecret: options.entitySecret, ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}) });
}

/** Our networks on Circle: mainnets with live keys, their testnets with `TEST_API_KEY` keys. */
export const circleBlockchains: Record<CryptoNetwork, { live: Blockchain; test: Blockchain }> = {
  ETHEREUM: { live: 'ETH', test: 'ETH-SEPOLIA' },
  POLYGON: { live: 'MATIC', test: 'MATIC-AMOY' },
  BASE: { live: 'BASE', test: 'BASE-SEPOLIA' },
  SOLANA: { live: 'SOL', test: 'SOL-DEVNET' },
};

/** Namespace of the idempotency keys (Circle wants UUIDs): UUIDv5 of our attempt id, the same id always the same key. */
const idempotencyNamespace = 'a3f6c1e2-52a4-4f0b-9c67-1d0e3b8f5a90';

export function circleIdempotencyKey(payoutId: string): string {
  return uuidv5(payoutId, idempotencyNamespace);
}

/** `12.345678` USDC → 1234 (cents, our minor unit; dust below a cent does not count). */
export function usdcToMinor(amount: string): number {
  const match = /^(\d+)(?:\.(\d*))?$/.exec(amount.trim());
  if (!match) {
    throw new Error('Circle reported a balance that is not a decimal amount');
  }
  return Number(match[1]) * 100 + Number(((match[2] ?? '') + '00').slice(0, 2));
}

export function minorToUsdc(amount: number): string {
  return `${Math.floor(amount / 100)}.${String(amount % 100).padStart(2, '0')}`;
}

/** A reference for a payout refused before it reached Circle (nothing to look up there). */
const refusedPrefix = 'refused:';
const lookupPages = 20;

/**
 * USDC payouts through Circle developer-controlled wallets: a transfer of the USDC token from the
 * operator's wallet on the chosen network to the customer's address, at the configured fee level.
 * Idempotent on our payout attempt id (a UUIDv5 of it is Circle's idempotency key; the id itself is
 * the transfer's `refId`), retrievable by it (the wallets' transfers since the attempt, by refId).
 */
export function createCircleRail(client: CircleClient, options: CircleRailOptions): PayoutRail {
  let wallets: Promise<Map<string, string>> | null = null;
  const usdcTokens = new Map<string, string>();

  /** blockchain → operator wallet id, read once from Circle (each wallet lives on one chain). */
  function walletsByChain(): Promise<Map<string, string>> {
    wallets ??= (async () => {
      const byChain = new Map<string, string>();
      for (const id of options.walletIds) {
        const wallet = (await client.getWallet({ id })).data?.wallet;
        if (wallet) {
          byChain.set(wallet.blockchain, wallet.id);
        }
      }
      return byChain;
    })().catch((error: unknown) => {
      wallets = null;
      throw error;
    });
    return wallets;
  }

  async function walletFor(network: CryptoNetwork): Promise<string | null> {
    return (await walletsByChain()).get(circleBlockchains[network][options.environment]) ?? null;
  }

  /** The wallet's USDC balance entry (the token id transfers name, and the amount). */
  async function usdcOf(walletId: string): Promise<{ tokenId: string; amount: string } | null> {
    const balances = (await client.getWalletTokenBalance({ id: walletId, includeAll: true })).data?.tokenBalances ?? [];
    const usdc = balances.find((balance) => balance.token.symbol === 'USDC' && !balance.token.isNative);
    if (!usdc) {
      return null;
    }
    usdcTokens.set(walletId, usdc.token.id);
    return { tokenId: usdc.token.id, amount: usdc.amount };
  }

  const record = (transaction: Pick<Transaction, 'id' | 'state' | 'txHash' | 'errorReason'>): PayoutRailRecord => ({ reference: transaction.id, status: circleTransactionStatus(transaction) });

  function refusal(submission: PayoutSubmission): string | null {
    if (submission.destination.type !== 'CRYPTO_WALLET') {
      return 'Circle pays crypto wallets only';
    }
    if (submission.currency !== 'USDC') {
      return `Circle pays USDC; this payout is funded in ${submission.currency}`;
    }
    return null;
  }

  return withPlainErrors('circle', {
    name: options.backsSandbox ? circleTestRailName : circleRailName,
    pollIntervalMs: 30_000,
    async submit(submission) {
      const refused = refusal(submission);
      if (refused !== null || submission.destination.type !== 'CRYPTO_WALLET') {
        return { reference: `${refusedPrefix}${submission.payoutId}`, status: { status: 'REJECTED', reason: refused ?? 'not a crypto wallet' } };
      }
      const { destination } = submission;
      const walletId = await walletFor(destination.network);
      if (!walletId) {
        return { reference: `${refusedPrefix}${submission.payoutId}`, status: { status: 'REJECTED', reason: `Circle: the operator has no wallet on ${destination.network}; choose another network` } };
      }
      const tokenId = usdcTokens.get(walletId) ?? (await usdcOf(walletId))?.tokenId;
      if (!tokenId) {
        throw new Error(`Circle wallet ${walletId} holds no USDC token`);
      }
      const created = await client.createTransaction({
        walletId,
        tokenId,
        destinationAddress: destination.address,
        amount: [minorToUsdc(submission.amount)],
        fee: { type: 'level', config: { feeLevel: options.feeLevel } },
        refId: submission.payoutId,
        idempotencyKey: circleIdempotencyKey(submission.payoutId),
      });
      const data = created.data;
      if (!data) {
        throw new Error('Circle answered a transfer without its id');
      }
      return record(data);
    },
    async retrieve(payoutId, since) {
      const from = new Date((since?.getTime() ?? Date.now() - 7 * 86_400_000) - 10 * 60_000).toISOString();
      let pageAfter: string | undefined;
      for (let page = 0; page < lookupPages; page += 1) {
        const transactions = (await client.listTransactions({ walletIds: [...options.walletIds], from, pageSize: 50, ...(pageAfter ? { pageAfter } : {}) })).data?.transactions ?? [];
        const found = transactions.find((transaction) => transaction.refId === payoutId);
        if (found) {
          return record(found);
        }
        if (transactions.length < 50) {
          return null;
        }
        pageAfter = transactions[transactions.length - 1]?.id;
      }
      throw new Error('Circle lookup by refId did not finish within its page budget');
    },
    async listPayouts({ from, to }) {
      const listed: PayoutRailListing[] = [];
      let pageAfter: string | undefined;
      for (;;) {
        const transactions =
          (await client.listTransactions({ walletIds: [...options.walletIds], operation: 'TRANSFER', from: from.toISOString(), to: to.toISOString(), pageSize: 50, ...(pageAfter ? { pageAfter } : {}) })).data?.transactions ?? [];
        for (const transaction of transactions) {
          if (transaction.transactionType === 'OUTBOUND') {
            listed.push({ payoutId: transaction.refId ?? null, reference: transaction.id, amount: usdcToMinor(transaction.amounts?.[0] ?? '0'), status: circleTransactionStatus(transaction).status });
          }
        }
        if (transactions.length < 50) {
          return listed;
        }
        pageAfter = transactions[transactions.length - 1]?.id;
      }
    },
    async availableBalance({ currency, destination }) {
      if (currency !== 'USDC' || destination.type !== 'CRYPTO_WALLET') {
        return null;
      }
      const walletId = await walletFor(destination.network);
      if (!walletId) {
        return null;
      }
      const usdc = await usdcOf(walletId);
      return usdc ? usdcToMinor(usdc.amount) : 0;
    },
    async fetchStatus(reference) {
      if (reference.startsWith(refusedPrefix)) {
        return { status: 'REJECTED', reason: 'refused before submission' };
      }
      const transaction = (await client.getTransaction({ id: reference })).data?.transaction;
      if (!transaction) {
        throw new Error('Circle answered a transaction lookup without the transaction');
      }
      return circleTransactionStatus(transaction);
    },
  });
}
