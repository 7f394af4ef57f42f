import type Stripe from 'stripe';
import type { JobDefinition } from '../../jobs/worker.ts';
import { providerCall } from '../providers/index.ts';
import { paymentIdMetadataKey, stripeBrandSchemes } from '../card-processor/index.ts';
import type { PaymentsService, StripeObjectEventJob } from '../payments/index.ts';
import type { FraudReportsService } from './service.ts';

export const stripeFraudWarningQueue = 'fraud-reports.stripe-early-fraud-warning';
/** Enable these on the Stripe webhook endpoint. */
export const stripeFraudWarningEvents = ['radar.early_fraud_warning.created', 'radar.early_fraud_warning.updated'] as const;

/**
 * Stripe's early fraud warning `fraud_type` → the report's readable `fraudReason` (one table, a
 * test per row); the code itself is kept as `fraudType`. An unknown type is named as it is.
 */
export const stripeFraudTypeReasons: Readonly<Record<string, string>> = {
  card_never_received: 'Card never received by the cardholder',
  fraudulent_card_application: 'Fraudulent card application',
  made_with_counterfeit_card: 'Counterfeit card',
  made_with_lost_card: 'Lost card',
  made_with_stolen_card: 'Stolen card',
  misc: 'Miscellaneous fraud',
  unauthorized_use_of_card: 'Unauthorized use of the card (card not present)',
};

export function stripeFraudReasonFor(fraudType: string): string {
  return stripeFraudTypeReasons[fraudType] ?? `Fraud type ${fraudType}`;
}

/**
 * Acts on a recorded `radar.early_fraud_warning.*` event: fetches the warning (with its charge and
 * PaymentIntent), and makes it the payment's fraud report — network from the charge's card brand,
 * `fraudType` = Stripe's `fraud_type` — with its FRAUD_REPORTED event. A payment has one report, so
 * an update or a second warning finds it made. A warning on a payment we have not settled yet
 * settles it first (its own webhook may come later).
 */
export function stripeFraudWarningJob(deps: { stripe: Stripe; livemode: boolean; fraudReports: Pick<FraudReportsService, 'recordProcessorWarning'>; payments: Pick<PaymentsService, 'reconcile'> }): JobDefinition<StripeObjectEventJob> {
  return {
    queue: stripeFraudWarningQueue,
    maxAttempts: 20,
    handle: async ({ objectId }) => {
      if (objectId === '') {
        return;
      }
      const warning = await providerCall('stripe', 'radar.earlyFraudWarnings.retrieve', () => deps.stripe.radar.earlyFraudWarnings.retrieve(objectId, { expand: ['charge', 'payment_intent'] }));
      const intent = typeof warning.payment_intent === 'object' ? warning.payment_intent : null;
      const charge = typeof warning.charge === 'object' ? warning.charge : null;
      const paymentId = intent?.metadata[paymentIdMetadataKey];
      if (!paymentId) {
        // Not a payment Paysail made (another integration on the same Stripe account).
        return;
      }
      const brand = charge?.payment_method_details?.card?.brand ?? '';
      await deps.payments.reconcile(paymentId);
      await deps.fraudReports.recordProcessorWarning({
        paymentId,
        livemode: deps.livemode,
        network: stripeBrandSchemes[brand] ?? 'UNKNOWN',
        fraudType: warning.fraud_type,
        fraudReason: stripeFraudReasonFor(warning.fraud_type),
        reportedAt: new Date(warning.created * 1000),
        source: 'STRIPE_EARLY_FRAUD_WARNING',
      });
    },
  };
}
