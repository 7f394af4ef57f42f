import { Type, type Static } from 'typebox';
import { auditActorTypes, auditOutcomes } from '../../db/schema/index.ts';
import { EpochMilliseconds, listPaging } from '../../http/schemas.ts';

export const AuditActorTypeSchema = Type.Enum(auditActorTypes, {
  description: 'api_key (actorId key_…), dashboard_user (actorId usr_…) or operator (actorId `operator`).',
});

export const AuditEventSchema = Type.Object(
  {
    id: Type.String({ description: 'aud_…' }),
    merchantId: Type.Union([Type.String(), Type.Null()], { description: 'The merchant acted on; null for operator actions on no merchant.' }),
    livemode: Type.Union([Type.Boolean(), Type.Null()], { description: 'The mode acted in; null when the request named none.' }),
    actorType: AuditActorTypeSchema,
    actorId: Type.String({ description: 'The API key id, the dashboard user id, or `operator`. Never a secret.' }),
    action: Type.String({ description: "The API operation (`payoutPages_release`, `adminMerchants_enableLive`, …) or the dashboard action named like it (`apiKeys_revoke`, …)." }),
    target: Type.Union([Type.String(), Type.Null()], { description: 'The id acted on (the last id of the address, or what a create created).' }),
    address: Type.String({ description: "The client's address (its forwarded address behind a TRUST_PROXY proxy); `cli` for the operator CLI." }),
    outcome: Type.Enum(auditOutcomes, { description: 'SUCCEEDED (answered below 400) or FAILED.' }),
    statusCode: Type.Integer({ description: 'The HTTP status answered (303 for dashboard forms, which redirect); for the operator CLI, the exit code (0 done, 1 refused or failed).' }),
    errorCode: Type.Union([Type.String(), Type.Null()], { description: 'The errorCode of a failed action, when it had one.' }),
    requestId: Type.String({ description: 'The Request-Id of the request.' }),
    createdAt: Type.Integer({ description: 'Epoch milliseconds.' }),
  },
  { $id: 'AuditEvent' },
);
export type AuditEventJson = Static<typeof AuditEventSchema>;

export const AuditEventListQuery = Type.Object(
  {
    ...listPaging('audit event'),
    merchantId: Type.Optional(Type.String({ minLength: 1, maxLength: 100, pattern: '^mer_[0-9a-z]+$', description: "Only this merchant's events." })),
    actorType: Type.Optional(AuditActorTypeSchema),
    action: Type.Optional(Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z_]+$', description: 'Only this action (an operationId).' })),
    createdFrom: Type.Optional(EpochMilliseconds({ description: 'Only events at or after this time (epoch milliseconds).' })),
    createdTo: Type.Optional(EpochMilliseconds({ description: 'Only events at or before this time (epoch milliseconds); not before createdFrom.' })),
  },
  { additionalProperties: false },
);
export type AuditEventListInput = Static<typeof AuditEventListQuery>;

export const AuditEventList = Type.Object({
  auditEvents: Type.Array(AuditEventSchema, { description: 'Newest first.' }),
  hasMore: Type.Boolean(),
  nextCursor: Type.Optional(Type.String({ description: 'Pass as `startingAfter` for the next page; present when `hasMore`.' })),
});
