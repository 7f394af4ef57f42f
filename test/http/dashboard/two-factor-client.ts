import assert from 'node:assert/strict';
import { Secret, TOTP } from 'otpauth';
import type { TestClock } from '../../helpers/clock.ts';
import type { DashboardClient } from './client.ts';

export const totpStepMs = 30_000;
export const securityPath = '/dashboard/sandbox/account/security';

/** The code an authenticator app shows for `secret` at the test clock's time, `offsetSteps` steps away. */
export function totpCode(clock: TestClock, secret: string, offsetSteps = 0): string {
  return TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: clock.now().getTime() + offsetSteps * totpStepMs });
}

/** The recovery codes a page lists. */
export function recoveryCodesOf(html: string): string[] {
  return [...html.matchAll(/<li>([a-z2-9]{5}-[a-z2-9]{5})<\/li>/g)].map((match) => String(match[1]));
}

/** Sets up two-factor sign-in as a user would: reads the secret off the page, types the app's code, reads the recovery codes. */
export async function enrolTwoFactor(client: DashboardClient, clock: TestClock): Promise<{ secret: string; codes: string[] }> {
  const page = await client.get(`${securityPath}/two-factor`);
  assert.equal(page.statusCode, 200, page.body);
  const secret = /<code class="secret"[^>]*>([A-Z2-7 ]+)<\/code>/.exec(page.body)?.[1]?.replace(/ /g, '');
  assert.ok(secret && secret.length === 32, 'the page shows the secret for manual entry');
  const enabled = await client.post(`${securityPath}/two-factor`, { code: totpCode(clock, secret) });
  assert.equal(enabled.statusCode, 303, enabled.body);
  assert.equal(enabled.headers.location, `${securityPath}/recovery-codes`);
  const codes = recoveryCodesOf((await client.get(`${securityPath}/recovery-codes`)).body);
  assert.equal(codes.length, 10);
  return { secret, codes };
}
