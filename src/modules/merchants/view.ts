import type { Merchant } from './service.ts';

/** A merchant as the operator sees it: the admin API's answers and the CLI's `--json` output. */
export function merchantView(merchant: Merchant) {
  return {
    id: merchant.id,
    name: merchant.name,
    email: merchant.email,
    liveEnabled: merchant.liveEnabled,
    fraudReportWebhooksEnabled: merchant.fraudReportWebhooksEnabled,
    rateLimitPerSecond: merchant.rateLimitPerSecond,
    rateLimitBurst: merchant.rateLimitBurst,
    createdAt: merchant.createdAt.getTime(),
  };
}
