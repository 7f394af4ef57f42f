import { booleanFlag, stringFlag } from './args.ts';
import { jsonFlag, type Command } from './command.ts';
import { UsageError, exitCodes, writeLine } from './io.ts';
import { withPlatform } from './platform.ts';
import { fundingCurrencies, maxPostingAmount, type FundingCurrency } from '../modules/ledger/index.ts';

/** Minor units as the currency's decimal amount: 150000 → 1500.00. */
function formatMinor(amount: number): string {
  const sign = amount < 0 ? '-' : '';
  const absolute = Math.abs(amount);
  return `${sign}${Math.floor(absolute / 100)}.${String(absolute % 100).padStart(2, '0')}`;
}

const credit: Command = {
  name: 'balance credit',
  audit: { action: 'adminBalances_credit', target: 'MERCHANT_ID' },
  summary: "credit a merchant's live balance with funds received from it",
  positionals: [{ name: 'MERCHANT_ID' }],
  flags: {
    amount: { type: 'string', valueName: 'MINOR_UNITS', description: `the amount in minor units (hundredths: 150000 is 1500.00), 1 to ${maxPostingAmount}; required` },
    currency: { type: 'string', valueName: 'CURRENCY', choices: fundingCurrencies, description: `the funding currency: ${fundingCurrencies.join(' or ')}; required` },
    json: jsonFlag,
  },
  details: [
    'Adds the amount to the live `available` balance (a `credit` ledger transaction from the outside',
    'world), like POST /admin/v1/merchants/:id/balance/credit, and prints the balance after it. Run it',
    'once per transfer received: every run credits again. Sandbox balances are funded by the merchant',
    'with POST /v1/test_helpers/balance/fund instead.',
  ],
  examples: ['paysail balance credit mer_… --amount 150000 --currency USDC', 'paysail balance credit mer_… --amount 2500 --currency USD --json'],
  async run({ io, deps, args }) {
    const [merchantId] = args.positionals as [string];
    const rawAmount = stringFlag(args, 'amount');
    const currency = stringFlag(args, 'currency') as FundingCurrency | undefined;
    if (rawAmount === undefined || currency === undefined) {
      throw new UsageError(`${rawAmount === undefined ? '--amount' : '--currency'} is required`, 'balance credit');
    }
    const amount = Number(rawAmount);
    if (!/^\d+$/.test(rawAmount) || amount < 1 || amount > maxPostingAmount) {
      throw new UsageError(`--amount must be an integer number of minor units from 1 to ${maxPostingAmount}, got "${rawAmount}"`, 'balance credit');
    }
    const { merchant, balance } = await withPlatform(io, deps, async (platform) => {
      // The same check as the admin route: an unknown merchant is an error, not a new ledger.
      const found = await platform.services.merchants.getMerchant(merchantId);
      return { merchant: found, balance: await platform.services.ledger.addFunds({ merchantId, livemode: true }, currency, amount, 'credit') };
    });
    if (!merchant.liveEnabled) {
      writeLine(io.stderr, `paysail: note: ${merchant.id} has no live mode yet; the funds are usable once it has (paysail merchants enable-live ${merchant.id})`);
    }
    if (booleanFlag(args, 'json')) {
      writeLine(io.stdout, JSON.stringify(balance, null, 2));
      return exitCodes.ok;
    }
    writeLine(io.stdout, `Credited ${formatMinor(amount)} ${currency} to the live balance of ${merchant.id} (${merchant.name})`);
    writeLine(io.stdout, `  available ${formatMinor(balance.available)}, reserved ${formatMinor(balance.reserved)}, in flight ${formatMinor(balance.inFlight)} ${currency}`);
    return exitCodes.ok;
  },
};

const backfillPayments: Command = {
  name: 'balance backfill-payments',
  audit: { action: 'cli_balanceBackfillPayments' },
  summary: 'credit the balances with card payments that succeeded before they were posted to the ledger',
  positionals: [],
  flags: { json: jsonFlag },
  details: [
    'Card payments that succeeded before card payments were posted to the ledger (installations from',
    'before migration 0013) have no credit on their merchant\'s balance. This posts it, in the payment',
    "currency and mode: one `payment` ledger transaction per payment, under the same idempotency key as",
    "a settlement's, so each payment is credited exactly once however often it runs (beside a server",
    'too). Migration 0016 enqueues the same backfill as a job; run this to do it at once and see the count.',
  ],
  examples: ['paysail balance backfill-payments', 'paysail balance backfill-payments --json'],
  async run({ io, deps, args }) {
    const result = await withPlatform(io, deps, (platform) => platform.services.paymentCredits.run());
    if (booleanFlag(args, 'json')) {
      writeLine(io.stdout, JSON.stringify(result, null, 2));
      return exitCodes.ok;
    }
    writeLine(io.stdout, `Credited ${result.credited} card payment${result.credited === 1 ? '' : 's'} that had no ledger credit; every succeeded payment now has exactly one.`);
    return exitCodes.ok;
  },
};

export const balanceCommands: readonly Command[] = [credit, backfillPayments];
