import assert from 'node:assert/strict';
import { createTestContext, json, type TestContext, type TestMerchant } from './context.ts';
import { uniqueReference } from './payout-pages.ts';
import { signedInClient, type DashboardClient } from '../http/dashboard/client.ts';

export interface AuditEventJson {
  id: string;
  merchantId: string | null;
  livemode: boolean | null;
  actorType: string;
  actorId: string;
  action: string;
  target: string | null;
  address: string;
  outcome: string;
  createdAt: number;
}
type ListAnswer = { data: { auditEvents: AuditEventJson[]; hasMore: boolean; nextCursor?: string } };

/** When the GET /admin/v1/audit_events suites start. */
export const auditListStartedAt = 1_800_000_000_000;

/**
 * The `before` of the GET /admin/v1/audit_events suites: three customers of the first merchant a
 * minute apart, one of the second, then the operator enables live for the second.
 */
export async function openAuditListSuite(): Promise<{ context: TestContext; first: TestMerchant; second: TestMerchant }> {
  const context = await createTestContext();
  context.clock.set(new Date(auditListStartedAt));
  const first = await context.createMerchant();
  const second = await context.createMerchant();
  for (const merchant of [first, first, first, second]) {
    const created = await context.request({ method: 'POST', url: '/v1/customers?livemode=false', apiKey: merchant.apiKey, body: { referenceId: uniqueReference('audit'), signupAt: 1_700_000_000_000 } });
    assert.equal(created.statusCode, 200, created.body);
    context.clock.advance(60_000);
  }
  assert.equal((await context.admin('POST', `/admin/v1/merchants/${second.id}/live`)).statusCode, 200);
  await context.platform.services.audit.flush();
  return { context, first, second };
}

/** GET /admin/v1/audit_events as the operator (200 asserted); `current` is read at each call. */
export function auditList(current: () => TestContext) {
  return async function list(query: string): Promise<ListAnswer['data']> {
    const response = await current().admin('GET', `/admin/v1/audit_events${query}`);
    assert.equal(response.statusCode, 200, response.body);
    return json<ListAnswer>(response).data;
  };
}

/** When the dashboard Audit log suites start. */
export const auditScreenStartedAt = Date.parse('2027-03-10T12:00:00.000Z');

/**
 * The `before` of the dashboard Audit log suites: sandbox customers on two days, one live customer,
 * another merchant's customer and the operator's settings change; both merchants signed in.
 */
export async function openAuditScreenSuite(): Promise<{ context: TestContext; merchant: TestMerchant; other: TestMerchant; client: DashboardClient; otherClient: DashboardClient }> {
  const context = await createTestContext();
  context.clock.set(new Date(auditScreenStartedAt));
  const merchant = await context.createMerchant({ name: 'Audit Screen Sails', live: true });
  const other = await context.createMerchant({ name: 'Other Sails' });
  for (const [who, mode] of [
    [merchant, 'false'],
    [merchant, 'false'],
    [merchant, 'true'],
    [other, 'false'],
  ] as const) {
    const created = await context.request({ method: 'POST', url: `/v1/customers?livemode=${mode}`, apiKey: who.apiKey, body: { referenceId: uniqueReference('screen'), signupAt: 1_700_000_000_000 } });
    assert.equal(created.statusCode, 200, created.body);
    context.clock.advance(24 * 60 * 60 * 1000);
  }
  assert.equal((await context.admin('POST', `/admin/v1/merchants/${merchant.id}/settings`, { fraudReportWebhooksEnabled: true })).statusCode, 200);
  // Signed in after the clock moved (a session lasts 12 hours); sign-ins are not audit entries.
  const client = await signedInClient(context, merchant);
  const otherClient = await signedInClient(context, other);
  await context.platform.services.audit.flush();
  return { context, merchant, other, client, otherClient };
}

/** The audit entry ids a screen shows, in its order. */
export function entryIds(html: string): string[] {
  return [...html.matchAll(/<tr id="(aud_[0-9a-z]+)"/g)].map((match) => String(match[1]));
}
