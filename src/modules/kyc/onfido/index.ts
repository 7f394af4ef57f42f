import type { Logger } from 'pino';
import type { OnfidoSettings } from '../../../config/onfido.ts';
import type { Database } from '../../../db/client.ts';
import type { JobDefinition } from '../../../jobs/worker.ts';
import type { Clock } from '../../../clock.ts';
import type { ProviderCheck, ProviderWebhookHandler } from '../../providers/index.ts';
import type { KycProvider } from '../providers/types.ts';
import { createOnfidoKycProvider } from './adapter.ts';
import { createOnfidoWebhookHandler, onfidoEventJob, onfidoProviderCheck, type OnfidoAccount } from './webhooks.ts';

export { onfidoOutcomeTable, mapOnfidoResult } from './mapping.ts';
export { onfidoEventsHandled, onfidoEventQueue } from './webhooks.ts';

/**
 * Onfido as configured: the live provider (ONFIDO_*) and, when set, Onfido's sandbox backing sandbox
 * mode (ONFIDO_TEST_*); their credentials checks; and, once the KYC service exists, the webhook
 * endpoint and the job that acts on its events.
 */
export function createOnfido(deps: { settings: OnfidoSettings; logger: Logger; publicUrl: string }) {
  const accounts: Array<OnfidoAccount & { provider: KycProvider }> = [];
  for (const environment of ['live', 'test'] as const) {
    const credentials = deps.settings[environment];
    if (!credentials) {
      continue;
    }
    const provider = createOnfidoKycProvider({
      name: environment === 'live' ? 'onfido' : 'onfido-test',
      apiToken: credentials.apiToken,
      region: credentials.region,
      sdkUrl: deps.settings.sdkUrl,
      ...(credentials.apiUrl ? { basePath: credentials.apiUrl } : {}),
      logger: deps.logger,
    });
    accounts.push({ environment, client: provider.client, webhookToken: credentials.webhookToken, provider });
  }
  return {
    live: accounts.find((account) => account.environment === 'live')?.provider ?? null,
    test: accounts.find((account) => account.environment === 'test')?.provider ?? null,
    checks: accounts.map((account): ProviderCheck => onfidoProviderCheck(account, deps.publicUrl)),
    /** The webhook endpoint and its job (none when Onfido is not configured). */
    inbound(options: { database: Database; clock: Clock; refresh: (verificationId: string) => Promise<unknown> }): { webhooks: ProviderWebhookHandler[]; jobs: JobDefinition<never>[] } {
      if (accounts.length === 0) {
        return { webhooks: [], jobs: [] };
      }
      return {
        webhooks: [createOnfidoWebhookHandler({ database: options.database, clock: options.clock, accounts })],
        jobs: [onfidoEventJob({ accounts, refresh: options.refresh, logger: deps.logger.child({ provider: 'onfido' }) }) as unknown as JobDefinition<never>],
      };
    },
  };
}
