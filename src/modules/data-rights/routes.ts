import type { Api } from '../../http/types.ts';
import { EmptyBody, Envelope, LivemodeQuery, errorResponses, succeeded } from '../../http/schemas.ts';
import { Type } from 'typebox';
import { modeFilter, requireAuth } from '../../http/auth.ts';
import { CustomerIdParams, ErasedCustomer } from '../customers/index.ts';
import type { ErasureService } from './service.ts';
import { CustomerExport, type CustomerExportService } from './export.ts';

export function registerDataRightsRoutes(api: Api, erasure: ErasureService, customerExport: CustomerExportService): void {
  api.post(
    '/customers/:customerId/erase',
    {
      schema: {
        tags: ['Customers'],
        operationId: 'customers_erase',
        summary: 'Erase a customer',
        description:
          "Removes the customer's personal data irreversibly (right to erasure): identity and contact fields, the e-mail and bank or wallet details on their pages, " +
          'the cardholder name on their payments, the e-mails sent to them, and their applicant at the KYC provider (deleted by a background job). ' +
          'Money records stay (amounts, statuses, ids, masked card and payout method). Answers what remains of the customer; `GET` answers the same from then on. ' +
          '`409 INVALID_STATE` names a payout page of the customer that is still open (CREATED, PENDING or PROCESSING). Erasing again answers the same and changes nothing. ' +
          'Emits `CUSTOMER_ERASED` once.',
        querystring: LivemodeQuery,
        params: CustomerIdParams,
        body: Type.Optional(EmptyBody),
        response: { 200: Envelope(ErasedCustomer), ...errorResponses(403, 404, 409) },
      },
    },
    async (request) => {
      const { merchant } = requireAuth(request);
      return succeeded(await erasure.eraseCustomer(merchant, modeFilter(merchant, request.query.livemode), request.params.customerId));
    },
  );

  api.get(
    '/customers/:customerId/export',
    {
      schema: {
        tags: ['Customers'],
        operationId: 'customers_export',
        summary: 'Export everything held about a customer',
        description:
          'The right of access: one JSON document with the customer as `GET` answers it, their payout pages, payment pages and subscriptions as their reads answer them, ' +
          'their card payments (masked card; the cardholder name as JWE), their KYC verification history and the e-mails sent to them (recipient, subject and text as JWE). ' +
          'Personal data comes as JWE under your PII key, as in every answer.',
        querystring: LivemodeQuery,
        params: CustomerIdParams,
        response: { 200: Envelope(CustomerExport), ...errorResponses(403, 404) },
      },
    },
    async (request) => {
      const { merchant } = requireAuth(request);
      return succeeded(await customerExport.exportCustomer(merchant, modeFilter(merchant, request.query.livemode), request.params.customerId));
    },
  );
}
