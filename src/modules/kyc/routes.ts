import { Type } from 'typebox';
import type { Api } from '../../http/types.ts';
import { Envelope, LivemodeQuery, errorResponses, succeeded } from '../../http/schemas.ts';
import { modeFilter, requireAuth } from '../../http/auth.ts';
import type { KycService } from './service.ts';

const KycReviewItem = Type.Object(
  {
    verificationId: Type.String(),
    customerId: Type.String(),
    customerReferenceId: Type.String(),
    livemode: Type.Boolean(),
    provider: Type.String({ description: '`onfido`, `onfido-test` or `sandbox-kyc`.' }),
    providerCheckId: Type.Union([Type.String(), Type.Null()], { description: "The provider's check id." }),
    providerUrl: Type.Union([Type.String(), Type.Null()], { description: "The check in the provider's dashboard, when it has one." }),
    reason: Type.Union([Type.String(), Type.Null()], { description: 'Why the provider could not decide (never personal data).' }),
    breakdown: Type.Record(Type.String(), Type.String(), { description: 'Result per report or rule, e.g. `identity_enhanced` → `consider`.' }),
    createdAt: Type.Integer(),
  },
  { $id: 'KycReviewItem', additionalProperties: false },
);

const ReviewParams = Type.Object({ customerId: Type.String({ maxLength: 100 }) }, { additionalProperties: false });
const ReviewBody = Type.Object(
  {
    decision: Type.Union([Type.Literal('APPROVED'), Type.Literal('REJECTED')]),
    reason: Type.String({ minLength: 1, maxLength: 500, description: 'Why (kept in the audit record; not shown to the customer).' }),
  },
  { additionalProperties: false },
);

/** The review queue of verifications a provider could not decide, and the merchant's decision. */
export function registerKycRoutes(api: Api, kyc: KycService): void {
  api.get(
    '/kyc_reviews',
    {
      schema: {
        tags: ['Customers'],
        operationId: 'kycReviews_list',
        summary: 'Identity verifications waiting for your review',
        description: 'Verifications the provider could not decide (the customer stays `kycStatus` PENDING, payout pages `KYC_IN_REVIEW`), newest first, at most 100.',
        querystring: LivemodeQuery,
        response: { 200: Envelope(Type.Object({ reviews: Type.Array(KycReviewItem) })), ...errorResponses(403) },
      },
    },
    async (request) => {
      const { merchant } = requireAuth(request);
      return succeeded({ reviews: await kyc.reviews.listInReview(merchant.id, modeFilter(merchant, request.query.livemode)) });
    },
  );

  api.post(
    '/customers/:customerId/kyc_review',
    {
      schema: {
        tags: ['Customers'],
        operationId: 'customers_decideKycReview',
        summary: "Approve or reject a customer's identity verification in review",
        description:
          'Decides as a provider decision would: `kycStatus` becomes APPROVED or REJECTED and waiting payout pages move on (events and e-mails). ' +
          'The decision is audited (API key, time, reason). Not in review → 409 INVALID_STATE.',
        querystring: LivemodeQuery,
        params: ReviewParams,
        body: ReviewBody,
        response: { 200: Envelope(Type.Object({ customerId: Type.String(), kycStatus: Type.Union([Type.Literal('APPROVED'), Type.Literal('REJECTED')]) })), ...errorResponses(403, 404, 409) },
      },
    },
    async (request) => {
      const { merchant, apiKeyId } = requireAuth(request);
      const { decision, reason } = request.body;
      await kyc.reviews.decide(merchant.id, modeFilter(merchant, request.query.livemode), request.params.customerId, { decision, reason }, `api:${apiKeyId}`);
      return succeeded({ customerId: request.params.customerId, kycStatus: decision });
    },
  );
}
