import assert from 'node:assert/strict';
import type { components } from '../../packages/sdk/src/generated/openapi.ts';
import { json, type TestContext } from './context.ts';

/** An e-mail as `GET /admin/v1/emails` answers it: the API reference's `AdminEmail`, through the SDK's generated types. */
export type AdminEmail = components['schemas']['AdminEmail'];

/** `GET /admin/v1/emails?<query>` with the admin key (200 asserted): the e-mails it lists. */
export async function adminEmails(context: TestContext, query: string): Promise<AdminEmail[]> {
  const response = await context.admin('GET', `/admin/v1/emails?${query}`);
  assert.equal(response.statusCode, 200, response.body);
  return json<{ data: { emails: AdminEmail[] } }>(response).data.emails;
}
