import { booleanFlag } from './args.ts';
import { jsonFlag, type Command } from './command.ts';
import { UsageError, exitCodes, writeLine } from './io.ts';
import { withPlatform } from './platform.ts';

/**
 * The payout methods a customer may be paid with. Written out here rather than imported from
 * `customers/rules.ts` so `--help` does not load the phone-number tables; test/cli/commands.test.ts
 * checks that this list and the service's stay the same.
 */
export const cliPayoutMethods = ['BANK_TRANSFER', 'CRYPTO_WALLET'] as const;

/** METHODS as typed (`BANK_TRANSFER,CRYPTO_WALLET`): a non-empty list of known methods without repeats. */
function parsePayoutMethods(raw: string): string[] {
  const methods = raw.split(',').map((method) => method.trim().toUpperCase());
  if (methods.some((method) => method === '')) {
    throw new UsageError(`METHODS must be a comma-separated list of ${cliPayoutMethods.join(', ')}, got "${raw}"`, 'customers set-payout-methods');
  }
  const unknown = methods.filter((method) => !(cliPayoutMethods as readonly string[]).includes(method));
  if (unknown.length > 0) {
    throw new UsageError(`unknown payout method ${unknown.map((method) => `"${method}"`).join(', ')}: use ${cliPayoutMethods.join(', ')}`, 'customers set-payout-methods');
  }
  if (new Set(methods).size !== methods.length) {
    throw new UsageError(`METHODS names a method twice: "${raw}"`, 'customers set-payout-methods');
  }
  return methods;
}

const setPayoutMethods: Command = {
  name: 'customers set-payout-methods',
  audit: { action: 'adminCustomers_setSupportedPayoutMethods', target: 'CUSTOMER_ID' },
  summary: 'set the payout methods a customer can be paid with (supportedPayoutMethods)',
  positionals: [{ name: 'CUSTOMER_ID' }, { name: 'METHODS' }],
  flags: { json: jsonFlag },
  details: [
    `METHODS is a comma-separated list of ${cliPayoutMethods.join(', ')}; it replaces the customer's list.`,
    'The customer is found by id in either mode and any merchant, like',
    'POST /admin/v1/customers/:id/supported_payout_methods. New payout pages offer only these methods.',
  ],
  examples: ['paysail customers set-payout-methods cus_… BANK_TRANSFER,CRYPTO_WALLET', 'paysail customers set-payout-methods cus_… CRYPTO_WALLET --json'],
  async run({ io, deps, args }) {
    const [customerId, rawMethods] = args.positionals as [string, string];
    const methods = parsePayoutMethods(rawMethods);
    const customer = await withPlatform(io, deps, (platform) => platform.services.customers.setSupportedPayoutMethods(customerId, methods));
    if (booleanFlag(args, 'json')) {
      writeLine(io.stdout, JSON.stringify(customer, null, 2));
      return exitCodes.ok;
    }
    writeLine(io.stdout, `Customer ${customer.id} (${customer.livemode ? 'live' : 'sandbox'}) supports payouts by ${(customer.supportedPayoutMethods ?? []).join(', ')}`);
    return exitCodes.ok;
  },
};

export const customerCommands: readonly Command[] = [setPayoutMethods];
