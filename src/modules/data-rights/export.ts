import { Type, type Static } from 'typebox';
import type { Database } from '../../db/client.ts';
import type { KeyRing } from '../../crypto/keyring.ts';
import { fieldsToJwe } from '../../crypto/pii.ts';
import type { Clock } from '../../clock.ts';
import { CustomerOrErased, type CustomersService } from '../customers/index.ts';
import { emailsAboutForExport } from '../email/index.ts';
import { verificationsForExport } from '../kyc/index.ts';
import type { Merchant, MerchantsService } from '../merchants/index.ts';
import { PaymentPage, type PaymentPagesService } from '../payment-pages/index.ts';
import { PayinDetails, customerPaymentsForExport } from '../payments/index.ts';
import { PayoutPage, type PayoutPagesService } from '../payout-pages/index.ts';
import { Subscription, type SubscriptionsService } from '../subscriptions/index.ts';

const Jwe = Type.String({ description: 'JWE compact serialization under the merchant PII key (alg dir, enc A256GCM).' });
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

/** `GET /v1/customers/{customerId}/export`: everything Paysail holds about one customer, in one document. */
export const CustomerExport = Type.Object(
  {
    exportedAt: Type.Integer({ description: 'Epoch milliseconds.' }),
    customer: CustomerOrErased,
    payoutPages: Type.Array(PayoutPage),
    paymentPages: Type.Array(PaymentPage),
    payments: Type.Array(
      Type.Object({
        id: Type.String({ description: 'pay_…' }),
        pageId: Nullable(Type.String()),
        kind: Type.String({ description: 'CHECKOUT or RENEWAL.' }),
        status: Type.String(),
        amount: Type.Integer(),
        currency: Type.String(),
        card: Nullable(PayinDetails),
        cardholderName: Nullable(Jwe),
        createdAt: Type.Integer(),
      }),
    ),
    subscriptions: Type.Array(Subscription),
    kycVerifications: Type.Array(
      Type.Object({
        id: Type.String({ description: 'kyc_…' }),
        provider: Type.String(),
        status: Type.String(),
        stage: Type.String(),
        reason: Nullable(Type.String()),
        breakdown: Nullable(Type.Record(Type.String(), Type.String())),
        decidedBy: Nullable(Type.String()),
        createdAt: Type.Integer(),
        decidedAt: Nullable(Type.Integer()),
        applicantDeletedAt: Nullable(Type.Integer()),
      }),
    ),
    emails: Type.Array(
      Type.Object({
        id: Type.String({ description: 'eml_…' }),
        template: Type.String(),
        status: Type.String(),
        relatedId: Nullable(Type.String()),
        to: Jwe,
        subject: Jwe,
        text: Jwe,
        createdAt: Type.Integer(),
        sentAt: Nullable(Type.Integer()),
      }),
    ),
  },
  { $id: 'CustomerExport' },
);
export type CustomerExportResponse = Static<typeof CustomerExport>;

/** Every page of a keyset-paged list (the lists' own service functions, 100 at a time). */
async function everyPage<T>(read: (startingAfter: string | undefined) => Promise<{ items: T[]; hasMore: boolean; nextCursor?: string | undefined }>): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await read(cursor);
    items.push(...page.items);
    if (!page.hasMore || !page.nextCursor) {
      return items;
    }
    cursor = page.nextCursor;
  }
}

/**
 * The right of access (GDPR art. 15): one JSON document with the customer as `GET` answers it, their
 * payout and payment pages and subscriptions as their reads answer them, their card payments, KYC
 * history and the e-mails sent to them. Personal data is answered as JWE under the merchant's PII
 * key, as everywhere (the pages' customer e-mail as the pages answer it).
 */
export function createCustomerExport(deps: {
  database: Database;
  clock: Clock;
  keyRing: KeyRing;
  merchants: MerchantsService;
  customers: CustomersService;
  payoutPages: () => PayoutPagesService;
  paymentPages: () => PaymentPagesService;
  subscriptions: () => SubscriptionsService;
}) {
  const { database, clock, keyRing } = deps;
  return {
    async exportCustomer(merchant: Merchant, livemode: boolean | undefined, customerId: string): Promise<CustomerExportResponse> {
      const customer = await deps.customers.getCustomer(merchant, livemode, customerId);
      const filter = { customerId: customer.id, limit: 100 };
      const payoutPages = await everyPage(async (startingAfter) => {
        const page = await deps.payoutPages().listPayoutPages(merchant, customer.livemode, { ...filter, ...(startingAfter ? { startingAfter } : {}) });
        return { items: page.payoutPages, hasMore: page.hasMore, nextCursor: page.nextCursor };
      });
      const paymentPages = await everyPage(async (startingAfter) => {
        const page = await deps.paymentPages().listPages(merchant, customer.livemode, { ...filter, ...(startingAfter ? { startingAfter } : {}) });
        return { items: page.paymentPages, hasMore: page.hasMore, nextCursor: page.nextCursor };
      });
      const subscriptions = await everyPage(async (startingAfter) => {
        const page = await deps.subscriptions().listSubscriptions(merchant, customer.livemode, { ...filter, ...(startingAfter ? { startingAfter } : {}) });
        return { items: page.subscriptions, hasMore: page.hasMore, nextCursor: page.nextCursor };
      });
      const piiKey = await deps.merchants.activePiiKey(merchant.id);
      const jwe = (value: string) => fieldsToJwe({ value }, piiKey).value ?? '';
      const payments = await customerPaymentsForExport(database.db, keyRing, merchant.id, customer.id);
      const verifications = await verificationsForExport(database.db, customer.id);
      const emails = await emailsAboutForExport(database.db, keyRing, merchant.id, [...payoutPages.map((page) => page.id), ...paymentPages.map((page) => page.id)]);
      const time = (value: Date | null) => (value ? value.getTime() : null);
      return {
        exportedAt: clock.now().getTime(),
        customer,
        payoutPages,
        paymentPages,
        payments: payments.map((payment) => ({ ...payment, cardholderName: payment.cardholderName === null ? null : jwe(payment.cardholderName), createdAt: payment.createdAt.getTime() })),
        subscriptions,
        kycVerifications: verifications.map((verification) => ({ ...verification, createdAt: verification.createdAt.getTime(), decidedAt: time(verification.decidedAt), applicantDeletedAt: time(verification.applicantDeletedAt) })),
        emails: emails.map((email) => ({ ...email, to: jwe(email.to), subject: jwe(email.subject), text: jwe(email.text), createdAt: email.createdAt.getTime(), sentAt: time(email.sentAt) })),
      };
    },
  };
}

export type CustomerExportService = ReturnType<typeof createCustomerExport>;
