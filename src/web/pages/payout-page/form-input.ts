import type { AppError } from '../../../http/errors.ts';
import type { KycInput, PayoutDestination, PayoutMethodInput, PayoutMethodType } from '../../../modules/payout-pages/index.ts';
import { networkLabels, type DestinationValues, type FieldErrors } from './views.tsx';

/** Reading the hosted payout page's form posts: field values, and API errors mapped back onto form fields. */

const destinationFieldNames = ['accountHolderName', 'routingNumber', 'accountNumber', 'accountType', 'network', 'address'] as const;
export const kycFieldNames = ['firstName', 'middleName', 'lastName', 'dateOfBirth', 'phoneNumber', 'address.line1', 'address.line2', 'address.city', 'address.state', 'address.postalCode', 'address.country'] as const;

export function text(body: Record<string, unknown>, name: string, max = 255): string {
  const value = body[name];
  return typeof value === 'string' ? value.slice(0, max) : '';
}

export function isMethod(value: unknown): value is PayoutMethodType {
  return value === 'BANK_TRANSFER' || value === 'CRYPTO_WALLET';
}

/** An API error's field (`payoutMethod.routingNumber`, `kyc.phoneNumber`, `address.state`) → the form's input name. */
function formField(error: AppError, prefixes: readonly string[]): string {
  let field = typeof error.extra.field === 'string' ? error.extra.field : '';
  for (const prefix of prefixes) {
    if (field.startsWith(prefix)) {
      field = field.slice(prefix.length);
    }
  }
  return field;
}

function ruleOf(error: AppError, field: string, prefixes: readonly string[]): string {
  let message = error.message;
  for (const prefix of ['', ...prefixes]) {
    if (message.startsWith(`${prefix}${field} `)) {
      message = message.slice(`${prefix}${field} `.length);
    }
  }
  return message.charAt(0).toUpperCase() + message.slice(1) + (message.endsWith('.') ? '' : '.');
}

export function destinationInput(body: Record<string, unknown>): { method: PayoutMethodType | null; input: PayoutMethodInput; values: DestinationValues } {
  const type = text(body, 'type', 40);
  const method = isMethod(type) ? type : null;
  const values: DestinationValues = {};
  const input: PayoutMethodInput = { type };
  const fields = method === 'BANK_TRANSFER' ? (['accountHolderName', 'routingNumber', 'accountNumber', 'accountType'] as const) : (['network', 'address'] as const);
  for (const name of fields) {
    const value = text(body, name, 200);
    values[name] = value;
    input[name] = value;
  }
  return { method, input, values };
}

/** Each problem beside its field (the first one per field), in form order. */
export function destinationErrors(...errors: AppError[]): FieldErrors {
  const fieldErrors: FieldErrors = {};
  for (const error of errors) {
    const field = formField(error, ['payoutMethod.']);
    const name = (destinationFieldNames as readonly string[]).includes(field) ? field : field === 'type' ? 'type' : 'accountHolderName';
    fieldErrors[name] ??= ruleOf(error, field, ['payoutMethod.']);
  }
  return fieldErrors;
}

/** What the review step shows of a validated destination (the account number masked). */
export function reviewDisplay(destination: PayoutDestination): Array<[string, string]> {
  return destination.type === 'BANK_TRANSFER'
    ? [
        ['Account holder', destination.accountHolderName],
        ['Routing number', destination.routingNumber],
        ['Account number', `•••• ${destination.accountNumber.slice(-4)}`],
        ['Account type', destination.accountType === 'CHECKING' ? 'Checking' : 'Savings'],
      ]
    : [
        ['Network', networkLabels[destination.network]],
        ['Wallet address', destination.address],
      ];
}

export function kycInput(body: Record<string, unknown>): { values: Record<string, string>; input: KycInput } {
  const values: Record<string, string> = {};
  for (const name of kycFieldNames) {
    values[name] = text(body, name, name === 'phoneNumber' ? 20 : 255).trim();
  }
  const input: KycInput = {};
  const address: NonNullable<KycInput['address']> = {};
  for (const name of kycFieldNames) {
    const value = values[name];
    if (!value) {
      continue;
    }
    if (name.startsWith('address.')) {
      address[name.slice('address.'.length) as keyof typeof address] = value;
    } else {
      input[name as Exclude<(typeof kycFieldNames)[number], `address.${string}`>] = value;
    }
  }
  if (Object.keys(address).length > 0) {
    input.address = address;
  }
  return { values, input };
}

/** Each problem beside its field (the first one per field), in the form's order. */
export function kycErrors(...errors: AppError[]): FieldErrors {
  const byField: FieldErrors = {};
  for (const error of errors) {
    const field = formField(error, ['kyc.']);
    const name = (kycFieldNames as readonly string[]).includes(field) ? field : 'firstName';
    byField[name] ??= ruleOf(error, field, ['kyc.']);
  }
  return Object.fromEntries(kycFieldNames.flatMap((name) => (byField[name] ? [[name, byField[name]]] : [])));
}
