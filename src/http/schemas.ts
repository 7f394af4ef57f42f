import { Type, type TSchema } from 'typebox';
import { errorCodes } from './errors.ts';

/** `{ status: 'SUCCEEDED', data }` — every success answer except the entitlements query. */
export function Envelope<T extends TSchema>(data: T) {
  return Type.Object({ status: Type.Literal('SUCCEEDED'), data }, { additionalProperties: false });
}

export const ErrorEnvelope = Type.Object(
  {
    status: Type.Literal('FAILED'),
    errorCode: Type.Union(errorCodes.map((code) => Type.Literal(code))),
    errorMessage: Type.String(),
    requestId: Type.String(),
  },
  { $id: 'ErrorEnvelope', additionalProperties: true, description: 'Every failure, on every route. CARD_DECLINED adds declineReason.' },
);

export const LivemodeQuery = Type.Object(
  {
    livemode: Type.Optional(Type.Boolean({ description: '`false` selects sandbox, `true` live; omitted means live for creates and "either mode" for reads by id and lists.' })),
  },
  { additionalProperties: false },
);

/** The largest epoch-millisecond value a date can hold (ECMAScript's time range, ±100,000,000 days). */
export const maxEpochMilliseconds = 8_640_000_000_000_000;

/** An epoch-milliseconds input field: an integer a date can hold, so a value out of range is `WRONG_PARAMETER`, never a failed date conversion. */
export function EpochMilliseconds(options: { description: string }) {
  return Type.Integer({ minimum: -maxEpochMilliseconds, maximum: maxEpochMilliseconds, ...options });
}

/** What every list of the second round takes (`limit`, `startingAfter` bound to its filters and mode, `livemode`). */
export function listPaging(itemName: string) {
  return {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'Page size, 1–100 (default 20).' })),
    startingAfter: Type.Optional(
      Type.String({ minLength: 1, maxLength: 512, description: `The \`nextCursor\` of the previous page (same filters and mode), or the id of the last ${itemName} seen.` }),
    ),
    livemode: Type.Optional(Type.Boolean({ description: 'Only this mode; omitted: both modes.' })),
  };
}

export const EmptyBody = Type.Union([Type.Object({}, { additionalProperties: false }), Type.Null()], { description: 'Empty body or `{}`.' });

/** Success helper: wraps a resource in the envelope. */
export function succeeded<T>(data: T): { status: 'SUCCEEDED'; data: T } {
  return { status: 'SUCCEEDED', data };
}

export function errorResponses(...statuses: number[]): Record<number, { $ref: string }> {
  const responses: Record<number, { $ref: string }> = {};
  for (const status of [400, 401, 429, 500, ...statuses]) {
    responses[status] = { $ref: 'ErrorEnvelope#' };
  }
  return responses;
}
