import type { Database } from '../../../../db/client.ts';
import type { JobDefinition } from '../../../../jobs/worker.ts';
import type { Clock } from '../../../../clock.ts';
import { providerCall, type ProviderCheck, type ProviderWebhookHandler } from '../../../providers/index.ts';
import type { PayoutRail, PayoutRailUpdates } from '../types.ts';
import { createIncreaseClient, createIncreaseRail, type IncreaseRailOptions } from './rail.ts';
import { createIncreaseWebhooks } from './webhooks.ts';

export { increaseRailName, increaseSandboxRailName } from './rail.ts';
export type { IncreaseRailOptions } from './rail.ts';

/**
 * Increase, wired (the live keys, or Increase's sandbox backing sandbox mode): the bank rail (built before the payout pages service), then once that service
 * exists its webhook endpoint and event job, and the credentials check (`paysail providers check`).
 */
export function createIncreasePayouts(options: IncreaseRailOptions): {
  rail: PayoutRail;
  connect(deps: { database: Database; clock: Clock; updates: PayoutRailUpdates }): { webhook: ProviderWebhookHandler; job: JobDefinition<{ eventId: string }>; check: ProviderCheck };
} {
  const client = createIncreaseClient(options);
  return {
    rail: createIncreaseRail(client, options),
    connect({ database, clock, updates }) {
      const environment = options.environment ?? 'live';
      const { handler, job } = createIncreaseWebhooks({ client, webhookSecret: options.webhookSecret, environment, database, clock, updates });
      const check: ProviderCheck = {
        provider: 'increase',
        environment,
        async check() {
          const account = await providerCall('increase', 'accounts.retrieve', () => client.accounts.retrieve(options.accountId));
          return `account ${account.id} (${account.name}, ${account.status})`;
        },
      };
      return { webhook: handler, job, check };
    },
  };
}
