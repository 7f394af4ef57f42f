import { AppError } from '../../http/errors.ts';
import type { CardProcessor, ChargeResult } from './types.ts';

/** The processor the platform uses: sandbox charges go to the sandbox, live ones to the live adapter. */
export interface CardProcessorRouter extends CardProcessor {
  /** False for live mode when no live processor is configured. */
  isAvailable(livemode: boolean): boolean;
  /** The name of the processor that handles `livemode` (stored on each payment). */
  processorName(livemode: boolean): string;
  retrieveCharge(input: { paymentId: string; livemode: boolean }): Promise<ChargeResult | null>;
}

export const liveProcessorMissingMessage =
  'Live card payments are not available: no live card processor is configured on this Paysail installation. Use livemode=false for sandbox payments.';

export function createCardProcessorRouter(processors: { sandbox: CardProcessor; live: CardProcessor | null }): CardProcessorRouter {
  function pick(livemode: boolean): CardProcessor {
    const processor = livemode ? processors.live : processors.sandbox;
    if (!processor) {
      throw new AppError('FORBIDDEN', liveProcessorMissingMessage);
    }
    return processor;
  }
  return {
    name: 'router',
    isAvailable: (livemode) => (livemode ? processors.live !== null : true),
    processorName: (livemode) => pick(livemode).name,
    async charge(input) {
      return pick(input.livemode).charge(input);
    },
    async chargeToken(input) {
      return pick(input.livemode).chargeToken(input);
    },
    async retrieveCharge(input) {
      const processor = pick(input.livemode);
      return processor.retrieveCharge ? processor.retrieveCharge(input) : null;
    },
  };
}
