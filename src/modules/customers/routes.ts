import type { Api } from '../../http/types.ts';
import { Envelope, LivemodeQuery, errorResponses, succeeded } from '../../http/schemas.ts';
import { modeFilter, modeForCreate, requireAuth } from '../../http/auth.ts';
import { Customer, CustomerCreateBody, CustomerIdParams, CustomerList, CustomerListQuery, CustomerOrErased, CustomerUpdateBody } from './schemas.ts';
import type { CustomersService } from './service.ts';

export function registerCustomerRoutes(api: Api, customers: CustomersService): void {
  api.get(
    '/customers',
    {
      schema: {
        tags: ['Customers'],
        operationId: 'customers_list',
        summary: 'List customers',
        description:
          'Newest first, each exactly as `GET /v1/customers/{customerId}` answers it (PII fields as JWE). Filter by `referenceId`, `email` (exact, through a keyed hash), `kycStatus`, ' +
          '`createdFrom`/`createdTo` (epoch ms, inclusive) and `livemode` (omitted: both modes). Page with `limit` and `startingAfter` (the previous ' +
          '`nextCursor`, valid for the same filters and mode only, or a customer id).',
        querystring: CustomerListQuery,
        response: { 200: Envelope(CustomerList), ...errorResponses(403) },
      },
    },
    async (request) => {
      const { merchant } = requireAuth(request);
      return succeeded(await customers.listCustomers(merchant, modeFilter(merchant, request.query.livemode), request.query));
    },
  );

  api.post(
    '/customers',
    {
      schema: {
        tags: ['Customers'],
        operationId: 'customers_create',
        summary: 'Create a customer',
        description:
          'Creates a customer. When the identity data needed for KYC is complete it is verified in the background (`kycStatus` PENDING); ' +
          'otherwise the hosted payout page asks the customer for the rest. PII fields come back as JWE.',
        querystring: LivemodeQuery,
        body: CustomerCreateBody,
        response: { 200: Envelope(Customer), ...errorResponses(403, 409) },
      },
    },
    async (request) => {
      const { merchant } = requireAuth(request);
      const livemode = modeForCreate(merchant, request.query.livemode);
      return succeeded(await customers.createCustomer(merchant, livemode, request.body));
    },
  );

  api.get(
    '/customers/:customerId',
    {
      schema: {
        tags: ['Customers'],
        operationId: 'customers_retrieve',
        summary: 'Read a customer',
        description: 'The customer (PII fields as JWE), or, once erased, what remains of it: `{id, referenceId, merchantId, livemode, erasedAt, createdAt}`.',
        querystring: LivemodeQuery,
        params: CustomerIdParams,
        response: { 200: Envelope(CustomerOrErased), ...errorResponses(403, 404) },
      },
    },
    async (request) => {
      const { merchant } = requireAuth(request);
      return succeeded(await customers.getCustomer(merchant, modeFilter(merchant, request.query.livemode), request.params.customerId));
    },
  );

  api.post(
    '/customers/:customerId',
    {
      schema: {
        tags: ['Customers'],
        operationId: 'customers_update',
        summary: 'Update a customer',
        description:
          'Updates `email`, `address` (merged field by field) and `supportedPaymentMethods` (only while unset; the same value again is accepted). Any other field of the customer (`referenceId`, `signupAt`, `firstName`, `middleName`, `lastName`, `dateOfBirth`, `phoneNumber`, `supportedPayoutMethods`, and the server-set `id`, `merchantId`, `livemode`, `kycStatus`, `createdAt`, `updatedAt`) answers `400 IMMUTABLE_FIELD` naming it; a field the customer does not have answers `400 WRONG_PARAMETER` naming it. Either way nothing changes.',
        querystring: LivemodeQuery,
        params: CustomerIdParams,
        body: CustomerUpdateBody,
        response: { 200: Envelope(Customer), ...errorResponses(403, 404, 409) },
      },
    },
    async (request) => {
      const { merchant } = requireAuth(request);
      return succeeded(await customers.updateCustomer(merchant, modeFilter(merchant, request.query.livemode), request.params.customerId, request.body));
    },
  );
}
