import { AppError } from '../../http/errors.ts';
import type { CardDetails, CardProcessor, ChargeResult } from './types.ts';

/** The sandbox processor's own card form, behind the port (sandbox mode only). */
export interface SandboxCardForm {
  confirmWithCard(input: { paymentId: string; livemode: boolean; card: CardDetails }): Promise<ChargeResult | null>;
}

/** The processor the platform uses, one per mode: sandbox payments go to the sandbox, live ones to the live adapter (a dispatcher, not an HTTP router). */
export interface ProcessorsByMode extends CardProcessor {
  /** False for live mode when no live processor is configured. */
  isAvailable(livemode: boolean): boolean;
  /** The name of the processor that handles `livemode` (stored on each payment). */
  processorName(livemode: boolean): string;
  /**
   * The sandbox card form when `livemode`'s processor has one (the built-in sandbox), else null:
   * a live processor never receives a card number from Paysail.
   */
  cardForm(livemode: boolean): SandboxCardForm | null;
}

/** Why a card number is refused: live mode, or sandbox mode backed by a Stripe test account — both confirm in the processor's own fields. */
export function cardNumbersRefusedMessage(livemode: boolean): string {
  const where = livemode ? 'in live mode' : 'in this sandbox: it is backed by a Stripe test account (STRIPE_TEST_*)';
  return `Card numbers are not accepted ${where}: the hosted checkout confirms the payment with the processor's own fields.`;
}

export const liveProcessorMissingMessage =
  'Live card payments are not available: no live card processor is configured on this Paysail installation. Use livemode=false for sandbox payments.';

export function createProcessorsByMode(processors: { sandbox: CardProcessor & Partial<SandboxCardForm>; live: (CardProcessor & Partial<SandboxCardForm>) | null }): ProcessorsByMode {
  function pick(livemode: boolean): CardProcessor & Partial<SandboxCardForm> {
    const processor = livemode ? processors.live : processors.sandbox;
    if (!processor) {
      throw new AppError('FORBIDDEN', liveProcessorMissingMessage);
    }
    return processor;
  }
  return {
    name: 'by-mode',
    isAvailable: (livemode) => (livemode ? processors.live !== null : true),
    processorName: (livemode) => pick(livemode).name,
    cardForm(livemode) {
      if (livemode) {
        return null;
      }
      const processor = processors.sandbox;
      const confirmWithCard = processor.confirmWithCard;
      return confirmWithCard ? { confirmWithCard: (input) => confirmWithCard.call(processor, input) } : null;
    },
    createPayment: async (input) => pick(input.livemode).createPayment(input),
    retrievePayment: async (input) => pick(input.livemode).retrievePayment(input),
    cancelPayment: async (input) => pick(input.livemode).cancelPayment(input),
    chargeSaved: async (input) => pick(input.livemode).chargeSaved(input),
    refund: async (input) => pick(input.livemode).refund(input),
    retrieveRefund: async (input) => pick(input.livemode).retrieveRefund(input),
  };
}
