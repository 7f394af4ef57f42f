import { Type } from 'typebox';
import type { Api } from '../../http/types.ts';
import { Envelope, LivemodeQuery, errorResponses, succeeded } from '../../http/schemas.ts';
import { modeFilter, requireAuth } from '../../http/auth.ts';
import { AppError } from '../../http/errors.ts';
import { Balance, FundBody } from './schemas.ts';
import type { LedgerService } from './service.ts';

/** `/v1/balance` and the sandbox funding helper. */
export function registerLedgerRoutes(api: Api, ledger: LedgerService): void {
  api.get(
    '/balance',
    {
      schema: {
        tags: ['Balance'],
        operationId: 'balance_retrieve',
        summary: 'Read the balance',
        description:
          'One entry per currency and mode: USDC and USD always, then EUR and GBP once a card payment in them was received. Fields: `available` (free funds: successful card payments add to it, refunds take from it; ' +
          'in USDC and USD it funds new payout pages), `reserved` (held by open payout pages) and `inFlight` (submitted to the payout rail). ' +
          'Amounts are integer minor units. With `livemode` that mode only; without it every mode the merchant can use.',
        querystring: LivemodeQuery,
        response: { 200: Envelope(Type.Array(Balance)), ...errorResponses(403) },
      },
    },
    async (request) => {
      const { merchant } = requireAuth(request);
      const livemode = modeFilter(merchant, request.query.livemode);
      const modes = livemode !== undefined ? [livemode] : merchant.liveEnabled ? [true, false] : [false];
      const balances = [];
      for (const mode of modes) {
        balances.push(...(await ledger.getBalances({ merchantId: merchant.id, livemode: mode })));
      }
      return succeeded(balances);
    },
  );

  api.post(
    '/test_helpers/balance/fund',
    {
      schema: {
        tags: ['Test helpers'],
        operationId: 'testHelpers_balance_fund',
        summary: 'Add funds to the sandbox balance',
        description: 'Sandbox only (`livemode=false`); live answers 403 FORBIDDEN. Live balances are credited by the operator.',
        querystring: LivemodeQuery,
        body: FundBody,
        response: { 200: Envelope(Balance), ...errorResponses(403) },
      },
    },
    async (request) => {
      const { merchant } = requireAuth(request);
      if (request.query.livemode !== false) {
        throw new AppError('FORBIDDEN', 'Test helpers work in sandbox only; pass livemode=false');
      }
      return succeeded(await ledger.addFunds({ merchantId: merchant.id, livemode: false }, request.body.currency, request.body.amount, 'fund'));
    },
  );
}

/** Operator routes under `/admin/v1`: credit and read a merchant's live balance. */
export function registerLedgerAdminRoutes(admin: Api, deps: { ledger: LedgerService; requireMerchant: (merchantId: string) => Promise<unknown> }): void {
  const { ledger, requireMerchant } = deps;
  const MerchantParams = Type.Object({ merchantId: Type.String({ maxLength: 100 }) }, { additionalProperties: false });

  admin.post(
    '/merchants/:merchantId/balance/credit',
    {
      schema: {
        tags: ['Admin'],
        security: [{ adminBearer: [] }],
        operationId: 'adminBalances_credit',
        summary: "Credit a merchant's live balance (funds received from the merchant)",
        params: MerchantParams,
        body: FundBody,
        response: { 200: Envelope(Balance), ...errorResponses(404) },
      },
    },
    async (request) => {
      await requireMerchant(request.params.merchantId);
      return succeeded(await ledger.addFunds({ merchantId: request.params.merchantId, livemode: true }, request.body.currency, request.body.amount, 'credit'));
    },
  );

  admin.get(
    '/merchants/:merchantId/balance',
    {
      schema: {
        tags: ['Admin'],
        security: [{ adminBearer: [] }],
        operationId: 'adminBalances_retrieve',
        summary: "Read a merchant's balances (live and sandbox)",
        params: MerchantParams,
        response: { 200: Envelope(Type.Array(Balance)), ...errorResponses(404) },
      },
    },
    async (request) => {
      await requireMerchant(request.params.merchantId);
      const owner = request.params.merchantId;
      return succeeded([...(await ledger.getBalances({ merchantId: owner, livemode: true })), ...(await ledger.getBalances({ merchantId: owner, livemode: false }))]);
    },
  );
}
