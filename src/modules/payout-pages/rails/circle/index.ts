import type { Database } from '../../../../db/client.ts';
import type { JobDefinition } from '../../../../jobs/worker.ts';
import type { Clock } from '../../../../clock.ts';
import { providerCall, type ProviderCheck, type ProviderWebhookHandler } from '../../../providers/index.ts';
import type { PayoutRail, PayoutRailUpdates } from '../types.ts';
import { createCircleClient, createCircleRail, type CircleRailOptions } from './rail.ts';
import { createCircleWebhooks } from './webhooks.ts';

export { circleRailName, circleTestRailName, circleIdempotencyKey } from './rail.ts';
export type { CircleRailOptions } from './rail.ts';

/**
 * Circle, wired: the USDC rail (built before the payout pages service), then once that service
 * exists its notification endpoint and job, and the credentials check (`paysail providers check`).
 */
export function createCirclePayouts(options: CircleRailOptions): {
  rail: PayoutRail;
  connect(deps: { database: Database; clock: Clock; updates: PayoutRailUpdates }): { webhook: ProviderWebhookHandler; job: JobDefinition<{ transactionId: string }>; check: ProviderCheck };
} {
  const client = createCircleClient(options);
  return {
    rail: createCircleRail(client, options),
    connect({ database, clock, updates }) {
      const { handler, job } = createCircleWebhooks({ client, database, clock, updates, subscriptionId: options.webhookSubscriptionId, backsSandbox: options.backsSandbox });
      const check: ProviderCheck = {
        provider: 'circle',
        environment: options.backsSandbox ? 'test' : options.environment,
        async check() {
          const described: string[] = [];
          for (const id of options.walletIds) {
            const wallet = await providerCall('circle', 'getWallet', async () => (await client.getWallet({ id })).data?.wallet);
            const balances = await providerCall('circle', 'getWalletTokenBalance', async () => (await client.getWalletTokenBalance({ id })).data?.tokenBalances ?? []);
            const usdc = balances.find((balance) => balance.token.symbol === 'USDC');
            described.push(`wallet ${id} (${wallet?.blockchain ?? 'unknown chain'}, ${wallet?.state ?? 'unknown'}, ${usdc?.amount ?? '0'} USDC)`);
          }
          return described.join('; ');
        },
      };
      return { webhook: handler, job, check };
    },
  };
}
