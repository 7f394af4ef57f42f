import type Stripe from 'stripe';

/**
 * Stripe objects as the replica returns them, built after Stripe's published fixtures and typed with
 * the `stripe` package's own types: a wrong field name or shape fails `npm run typecheck`.
 */

export interface TestCard {
  number: string;
  brand: string;
  funding: 'credit' | 'debit' | 'prepaid';
  issuer: string;
  /** What confirming with it does (Stripe's documented test cards). */
  /** three_d_secure: a challenge on every payment; three_d_secure_setup: a challenge on-session, none off-session once saved. refund_fails: a refund starts `succeeded`, then turns `failed`. */
  behaviour: 'succeed' | 'decline' | 'insufficient_funds' | 'three_d_secure' | 'three_d_secure_setup' | 'authentication_required_off_session' | 'refund_fails';
}

export const stripeTestCards: Readonly<Record<string, TestCard>> = {
  '4242424242424242': { number: '4242424242424242', brand: 'visa', funding: 'credit', issuer: 'Stripe Test Bank', behaviour: 'succeed' },
  '5555555555554444': { number: '5555555555554444', brand: 'mastercard', funding: 'credit', issuer: 'Stripe Test Bank', behaviour: 'succeed' },
  '4000000000000002': { number: '4000000000000002', brand: 'visa', funding: 'credit', issuer: 'Stripe Test Bank', behaviour: 'decline' },
  '4000000000009995': { number: '4000000000009995', brand: 'visa', funding: 'credit', issuer: 'Stripe Test Bank', behaviour: 'insufficient_funds' },
  '4000000000003220': { number: '4000000000003220', brand: 'visa', funding: 'credit', issuer: 'Stripe Test Bank', behaviour: 'three_d_secure' },
  '4000002500003155': { number: '4000002500003155', brand: 'visa', funding: 'credit', issuer: 'Stripe Test Bank', behaviour: 'three_d_secure_setup' },
  '378282246310005': { number: '378282246310005', brand: 'amex', funding: 'credit', issuer: 'Stripe Test Bank', behaviour: 'succeed' },
  '371449635398431': { number: '371449635398431', brand: 'amex', funding: 'credit', issuer: 'Stripe Test Bank', behaviour: 'succeed' },
  '6011000990139424': { number: '6011000990139424', brand: 'discover', funding: 'credit', issuer: 'Stripe Test Bank', behaviour: 'succeed' },
  // Succeeds; a refund of it starts `succeeded`, then turns `failed` (Stripe's documented test card).
  '4000000000005126': { number: '4000000000005126', brand: 'visa', funding: 'credit', issuer: 'Stripe Test Bank', behaviour: 'refund_fails' },
  '4000002760003184': { number: '4000002760003184', brand: 'visa', funding: 'credit', issuer: 'Stripe Test Bank', behaviour: 'authentication_required_off_session' },
  // Succeeds; Stripe then disputes it (the test drives that with `replica.dispute`).
  '4000000000000259': { number: '4000000000000259', brand: 'visa', funding: 'credit', issuer: 'Stripe Test Bank', behaviour: 'succeed' },
};

export function customerObject(id: string, created: number, metadata: Stripe.Metadata): Stripe.Customer {
  return {
    id,
    object: 'customer',
    balance: 0,
    created,
    default_source: null,
    description: null,
    email: null,
    invoice_settings: { custom_fields: null, default_payment_method: null, footer: null, rendering_options: null },
    livemode: false,
    metadata,
    shipping: null,
  };
}

export function chargeObject(input: { id: string; intentId: string; amount: number; currency: string; created: number; card: TestCard; customer: string | null; paymentMethod: string; networkTransactionId: string; succeeded: boolean; declineCode: string | null }): Stripe.Charge {
  const { card } = input;
  return {
    id: input.id,
    object: 'charge',
    amount: input.amount,
    amount_captured: input.succeeded ? input.amount : 0,
    amount_refunded: 0,
    application: null,
    application_fee: null,
    application_fee_amount: null,
    balance_transaction: input.succeeded ? `txn_${input.id.slice(3)}` : null,
    billing_details: { address: null, email: null, name: null, phone: null, tax_id: null },
    calculated_statement_descriptor: null,
    captured: input.succeeded,
    created: input.created,
    currency: input.currency,
    customer: input.customer,
    description: null,
    disputed: false,
    failure_balance_transaction: null,
    failure_code: input.succeeded ? null : 'card_declined',
    failure_message: input.succeeded ? null : 'Your card was declined.',
    fraud_details: {},
    livemode: false,
    metadata: {},
    on_behalf_of: null,
    outcome: { advice_code: null, network_advice_code: null, network_decline_code: null, network_status: input.succeeded ? 'approved_by_network' : 'declined_by_network', reason: input.declineCode, seller_message: null, type: input.succeeded ? 'authorized' : 'issuer_declined' },
    paid: input.succeeded,
    payment_intent: input.intentId,
    payment_method: input.paymentMethod,
    payment_method_details: {
      type: 'card',
      card: {
        amount_authorized: input.succeeded ? input.amount : null,
        authorization_code: input.succeeded ? '123456' : null,
        brand: card.brand,
        checks: { address_line1_check: null, address_postal_code_check: null, cvc_check: 'pass' },
        country: 'US',
        electronic_commerce_indicator: null,
        exp_month: 12,
        exp_year: 2034,
        funding: card.funding,
        iin: card.number.slice(0, 6),
        issuer: card.issuer,
        installments: null,
        last4: card.number.slice(-4),
        mandate: null,
        network: card.brand,
        network_transaction_id: input.succeeded ? input.networkTransactionId : null,
        regulated_status: null,
        three_d_secure: null,
        transaction_link_id: null,
        wallet: null,
      },
    },
    receipt_email: null,
    receipt_number: null,
    receipt_url: null,
    refunded: false,
    review: null,
    shipping: null,
    source: null,
    source_transfer: null,
    statement_descriptor: null,
    statement_descriptor_suffix: null,
    status: input.succeeded ? 'succeeded' : 'failed',
    transfer_data: null,
    transfer_group: null,
  };
}

export function paymentIntentObject(input: {
  id: string;
  amount: number;
  currency: string;
  created: number;
  status: Stripe.PaymentIntent.Status;
  customer: string | null;
  paymentMethod: string | null;
  setupFutureUsage: 'off_session' | null;
  metadata: Stripe.Metadata;
  latestCharge: Stripe.Charge | string | null;
  lastPaymentError: { code: string; declineCode: string | null } | null;
  canceledAt: number | null;
}): Stripe.PaymentIntent {
  return {
    id: input.id,
    object: 'payment_intent',
    allowed_payment_method_types: ['card'],
    amount: input.amount,
    amount_capturable: 0,
    amount_received: input.status === 'succeeded' ? input.amount : 0,
    application: null,
    application_fee_amount: null,
    automatic_payment_methods: { allow_redirects: 'never', enabled: true },
    canceled_at: input.canceledAt,
    cancellation_reason: input.canceledAt === null ? null : 'requested_by_customer',
    capture_method: 'automatic',
    client_secret: `${input.id}_secret_${input.id.slice(-8)}`,
    confirmation_method: 'automatic',
    created: input.created,
    currency: input.currency,
    customer: input.customer,
    customer_account: null,
    description: null,
    excluded_payment_method_types: null,
    last_payment_error: input.lastPaymentError
      ? { type: 'card_error', code: input.lastPaymentError.code, ...(input.lastPaymentError.declineCode ? { decline_code: input.lastPaymentError.declineCode } : {}), message: 'Your card was declined.' }
      : null,
    latest_charge: input.latestCharge,
    livemode: false,
    managed_payments: null,
    metadata: input.metadata,
    next_action: input.status === 'requires_action' ? { type: 'use_stripe_sdk', use_stripe_sdk: {} } : null,
    on_behalf_of: null,
    payment_method: input.paymentMethod,
    payment_method_configuration_details: null,
    payment_method_options: {},
    payment_method_types: ['card'],
    payment_record: null,
    processing: null,
    receipt_email: null,
    review: null,
    setup_future_usage: input.setupFutureUsage,
    shipping: null,
    source: null,
    statement_descriptor: null,
    statement_descriptor_suffix: null,
    status: input.status,
    transfer_group: null,
  };
}

export function refundObject(input: { id: string; amount: number; currency: string; created: number; chargeId: string; intentId: string; status: 'pending' | 'succeeded' | 'failed'; metadata: Stripe.Metadata; failureReason?: string }): Stripe.Refund {
  return {
    id: input.id,
    object: 'refund',
    amount: input.amount,
    balance_transaction: null,
    charge: input.chargeId,
    created: input.created,
    currency: input.currency,
    customer: null,
    customer_account: null,
    metadata: input.metadata,
    payment_intent: input.intentId,
    payment_method: null,
    reason: null,
    receipt_number: null,
    source_transfer_reversal: null,
    status: input.status,
    transfer_reversal: null,
    ...(input.status === 'failed' ? { failure_reason: input.failureReason ?? 'declined' } : {}),
  };
}

/** A dispute (chargeback) of a charge, after Stripe's published `dispute` fixture. */
export function disputeObject(input: { id: string; amount: number; currency: string; created: number; chargeId: string; intentId: string; reason: string; status: Stripe.Dispute.Status; dueBy: number | null; brand: string }): Stripe.Dispute {
  return {
    id: input.id,
    object: 'dispute',
    amount: input.amount,
    balance_transactions: [],
    charge: input.chargeId,
    created: input.created,
    currency: input.currency,
    enhanced_eligibility_types: [],
    evidence: {
      access_activity_log: null,
      billing_address: null,
      cancellation_policy: null,
      cancellation_policy_disclosure: null,
      cancellation_rebuttal: null,
      customer_communication: null,
      customer_email_address: null,
      customer_name: null,
      customer_purchase_ip: null,
      customer_signature: null,
      duplicate_charge_documentation: null,
      duplicate_charge_explanation: null,
      duplicate_charge_id: null,
      enhanced_evidence: {},
      product_description: null,
      receipt: null,
      refund_policy: null,
      refund_policy_disclosure: null,
      refund_refusal_explanation: null,
      service_date: null,
      service_documentation: null,
      shipping_address: null,
      shipping_carrier: null,
      shipping_date: null,
      shipping_documentation: null,
      shipping_tracking_number: null,
      uncategorized_file: null,
      uncategorized_text: null,
    },
    evidence_details: { due_by: input.dueBy, enhanced_eligibility: {}, has_evidence: false, past_due: false, submission_count: 0, submission_method: 'not_submitted' },
    intended_submission_method: null,
    is_charge_refundable: false,
    livemode: false,
    metadata: {},
    payment_intent: input.intentId,
    payment_method_details: { type: 'card', card: { brand: input.brand, case_type: 'chargeback', network: input.brand, network_reason_code: '10.4' } },
    reason: input.reason,
    status: input.status,
  };
}

/** A Radar early fraud warning on a charge, after Stripe's published `radar.early_fraud_warning` fixture. */
export function earlyFraudWarningObject(input: { id: string; created: number; chargeId: string; intentId: string; fraudType: string }): Stripe.Radar.EarlyFraudWarning {
  return {
    id: input.id,
    object: 'radar.early_fraud_warning',
    actionable: true,
    charge: input.chargeId,
    created: input.created,
    fraud_type: input.fraudType,
    livemode: false,
    payment_intent: input.intentId,
  };
}
