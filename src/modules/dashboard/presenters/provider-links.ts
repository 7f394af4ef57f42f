/**
 * Links from a provider's id on our records to the provider's own dashboard, where it has one.
 * Stripe: `https://dashboard.stripe.com/<kind>/<id>` for live objects, under `/test/` for objects of
 * a Stripe test account; the built-in sandbox processor has no dashboard (null).
 */
export type StripeObjectKind = 'payments' | 'disputes' | 'refunds';

export function stripeDashboardUrl(processor: string, kind: StripeObjectKind, id: string | null, livemode: boolean): string | null {
  if (processor !== 'stripe' || !id) {
    return null;
  }
  return `https://dashboard.stripe.com/${livemode ? '' : 'test/'}${kind}/${encodeURIComponent(id)}`;
}
