import { randomUUID } from 'node:crypto';
import { AppError, wrongParameter } from '../../http/errors.ts';
import { bodyError } from '../../http/validation.ts';
import { PaymentPageCreateBody, type PaymentPageCreateInput } from '../payment-pages/index.ts';
import { PayoutPageCreateBody, type PayoutPageCreateInput } from '../payout-pages/index.ts';
import { field } from './context.ts';

/** What the create forms send back into the form when it is shown again (never a secret: these are the merchant's own inputs). */
export type CreateFormValues = Record<string, string>;

/** A refused create form: the API's own WRONG_PARAMETER, with the form field it belongs to. */
export interface CreateFormProblem {
  message: string;
  field: string;
}

/** A fresh reference for a new form: posted twice (a double click, a reload), the second create is refused as a duplicate instead of making a second page. */
export function newFormReference(prefix: 'payout' | 'payment'): string {
  return `${prefix}-${randomUUID()}`;
}

/**
 * "25", "25.5", "1,250.00" (major units, two decimals at most) → 2500, 2550, 125000 minor units.
 * Anything else is WRONG_PARAMETER naming `amount`; the range is the API's to check.
 */
export function parseMajorAmount(raw: string): number {
  const text = raw.trim().replace(/,(?=\d{3}(\D|$))/g, '');
  const match = /^(\d{1,12})(?:\.(\d{1,2}))?$/.exec(text);
  if (!match) {
    throw wrongParameter('amount', 'must be an amount such as 25.00 (at most two decimals)');
  }
  return Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0'));
}

function optional(value: string): string | undefined {
  return value.trim() === '' ? undefined : value.trim();
}

/** The form names of the API body's fields (`customer.email` → `customerEmail`). */
const formFieldOf: Record<string, string> = {
  'customer.referenceId': 'customerReferenceId',
  'customer.email': 'customerEmail',
};

function checked<T>(schema: object, body: Record<string, unknown>): T {
  const error = bodyError(schema, body);
  if (error) {
    throw error;
  }
  return body as T;
}

/** Turns an error of the create call into the form's problem (the field it names, if the form has it). */
export function formProblem(error: unknown): CreateFormProblem | null {
  if (!(error instanceof AppError) || error.code !== 'WRONG_PARAMETER') {
    return null;
  }
  const named = typeof error.extra.field === 'string' ? error.extra.field : '';
  return { message: error.message, field: formFieldOf[named] ?? named };
}

/** The payout page form → the body `POST /v1/payout_pages` takes, checked by the API's own schema. */
export function payoutPageBody(form: unknown): PayoutPageCreateInput {
  return checked<PayoutPageCreateInput>(PayoutPageCreateBody, {
    amount: parseMajorAmount(field(form, 'amount', 40)),
    fundingCurrency: field(form, 'fundingCurrency', 10),
    releaseMethod: field(form, 'releaseMethod', 20),
    clientReferenceId: field(form, 'clientReferenceId', 300),
    customer: { referenceId: field(form, 'customerReferenceId', 300).trim(), email: field(form, 'customerEmail', 300).trim() },
  });
}

/** The payment page form → the body `POST /v1/payment_pages` takes, checked by the API's own schema. */
export function paymentPageBody(form: unknown): PaymentPageCreateInput {
  const description = optional(field(form, 'description', 600));
  return checked<PaymentPageCreateInput>(PaymentPageCreateBody, {
    amount: parseMajorAmount(field(form, 'amount', 40)),
    currency: field(form, 'currency', 10),
    clientReferenceId: field(form, 'clientReferenceId', 300),
    customer: { referenceId: field(form, 'customerReferenceId', 300).trim(), email: field(form, 'customerEmail', 300).trim() },
    ...(description === undefined ? {} : { description }),
  });
}

/** The values to show again in a refused form. */
export function formValues(form: unknown, names: readonly string[]): CreateFormValues {
  return Object.fromEntries(names.map((name) => [name, field(form, name, 600)]));
}
