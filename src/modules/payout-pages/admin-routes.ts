import { Type } from 'typebox';
import type { Api } from '../../http/types.ts';
import { Envelope, errorResponses, succeeded } from '../../http/schemas.ts';
import { wrongParameter } from '../../http/errors.ts';
import type { PayoutPagesService } from './service.ts';

const rawStatus = Type.Union([Type.Literal('PENDING'), Type.Literal('PAID'), Type.Literal('REJECTED'), Type.Literal('RETURNED')]);
const attemptStatus = Type.Union([Type.Literal('SUBMITTING'), Type.Literal('SUBMITTED'), Type.Literal('PAID'), Type.Literal('REJECTED'), Type.Literal('RETURNED')]);

const Difference = Type.Object({
  kind: Type.Union([Type.Literal('MISSING_AT_PROVIDER'), Type.Literal('UNKNOWN_AT_PROVIDER'), Type.Literal('AMOUNT_MISMATCH'), Type.Literal('STATUS_MISMATCH')]),
  payoutId: Type.Union([Type.String(), Type.Null()], { description: 'Our payout attempt id (payout_attempt_…); null for a provider record without one.' }),
  payoutPageId: Type.Union([Type.String(), Type.Null()]),
  merchantId: Type.Union([Type.String(), Type.Null()]),
  reference: Type.Union([Type.String(), Type.Null()], { description: "The provider's id of the payout." }),
  ours: Type.Union([Type.Object({ amount: Type.Integer(), status: attemptStatus }), Type.Null()]),
  provider: Type.Union([Type.Object({ amount: Type.Integer(), status: rawStatus }), Type.Null()]),
});

const Report = Type.Object({
  date: Type.String(),
  from: Type.String(),
  to: Type.String(),
  differences: Type.Integer({ description: 'How many differences, over every rail.' }),
  rails: Type.Array(
    Type.Object({
      rail: Type.String({ description: '`sandbox-rail`, `increase`, `circle`.' }),
      livemode: Type.Boolean(),
      ours: Type.Integer({ description: 'Our payout attempts handed to this rail that day.' }),
      provider: Type.Integer({ description: "The rail's payouts listed for the day (and a day either side, to match late submissions)." }),
      matched: Type.Integer(),
      differences: Type.Array(Difference),
    }),
  ),
});

const AwaitingFunding = Type.Object({
  id: Type.String({ description: 'payout_page_…' }),
  merchantId: Type.String(),
  livemode: Type.Boolean(),
  amount: Type.Integer(),
  currency: Type.Union([Type.Literal('USD'), Type.Literal('USDC')]),
  rail: Type.Union([Type.String(), Type.Null()]),
  waitingSince: Type.Integer({ description: 'Epoch ms.' }),
});

/** A real calendar day (YYYY-MM-DD, UTC), not in the future. */
export function parseReportDate(value: string, now: Date): string {
  const parsed = new Date(`${value}T00:00:00.000Z`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value) || Number.isNaN(parsed.getTime()) || parsed.toISOString().slice(0, 10) !== value) {
    throw wrongParameter('date', 'must be a calendar date YYYY-MM-DD (UTC)');
  }
  if (parsed.getTime() > now.getTime()) {
    throw wrongParameter('date', 'must not be in the future');
  }
  return value;
}

/** Operator routes under `/admin/v1` about payouts: the daily reconciliation report and the payouts waiting for funding. */
export function registerPayoutAdminRoutes(admin: Api, deps: { payoutPages: PayoutPagesService; now: () => Date }): void {
  const { payoutPages } = deps;
  const tags = ['Admin'];
  const security = [{ adminBearer: [] }];

  admin.get(
    '/reconciliation/payouts',
    {
      schema: {
        tags,
        security,
        operationId: 'adminReconciliation_payouts',
        summary: "Daily payout reconciliation: our payouts of a UTC day next to each rail's records, with every difference",
        querystring: Type.Object({ date: Type.String({ maxLength: 10, description: 'YYYY-MM-DD (UTC)' }) }, { additionalProperties: false }),
        response: { 200: Envelope(Report), ...errorResponses() },
      },
    },
    async (request) => succeeded(await payoutPages.reconcilePayouts(parseReportDate(request.query.date, deps.now()))),
  );

  admin.get(
    '/payouts/awaiting-funding',
    {
      schema: {
        tags,
        security,
        operationId: 'adminPayouts_listAwaitingFunding',
        summary: 'Payouts waiting for the operator to fund the payout rail account (oldest first, at most 100)',
        response: { 200: Envelope(Type.Array(AwaitingFunding)), ...errorResponses() },
      },
    },
    async () => succeeded(await payoutPages.awaitingFunding(100)),
  );
}
