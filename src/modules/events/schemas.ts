import { Type, type Static } from 'typebox';
import { eventTypes } from './record.ts';

export const EventTypeSchema = Type.Enum(eventTypes, { description: `One of ${eventTypes.join(', ')}.` });

export const EventSchema = Type.Object(
  {
    id: Type.String({ description: 'evt_… (also the `webhook-id` of its deliveries)' }),
    type: EventTypeSchema,
    createdAt: Type.Integer({ description: 'Epoch milliseconds.' }),
    livemode: Type.Boolean(),
    data: Type.Object({}, { additionalProperties: true, description: 'The event payload; its shape depends on `type`.' }),
  },
  { $id: 'Event' },
);
export type EventView = Static<typeof EventSchema>;

export const EventListQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'Page size, 1–100 (default 20).' })),
    startingAfter: Type.Optional(
      Type.String({ minLength: 1, maxLength: 512, description: 'The `nextCursor` of the previous page, or the id of the last event seen.' }),
    ),
    type: Type.Optional(EventTypeSchema),
    livemode: Type.Optional(Type.Boolean({ description: 'Only this mode; omitted: both modes.' })),
  },
  { additionalProperties: false },
);
export type EventListInput = Static<typeof EventListQuery>;

export const EventList = Type.Object({
  events: Type.Array(EventSchema, { description: 'Newest first.' }),
  hasMore: Type.Boolean(),
  nextCursor: Type.Optional(Type.String({ description: 'Pass as `startingAfter` for the next page; present when `hasMore`.' })),
});

export const EventIdParams = Type.Object({ eventId: Type.String({ maxLength: 100 }) }, { additionalProperties: false });
