/**
 * Disputes (chargebacks) of card payments: reported by the card processor (the sandbox's dispute
 * test card and test helper, Stripe's `charge.dispute.*` webhooks), with their ledger movements.
 */
export { createDisputesService, disputeView, type DisputesService, type SandboxDisputeControl } from './service.ts';
export { registerDisputeRoutes } from './routes.ts';
export { stripeDisputeEventQueue, stripeDisputeEvents, stripeDisputeJob } from './jobs.ts';
export { disputeFromStripe, stripeDisputeStates } from './stripe.ts';
export { DisputeSchema, type DisputeView } from './schemas.ts';
