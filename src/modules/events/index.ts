/**
 * Business events: recorded in the state change's transaction, listed for 30 days, fanned out to webhooks.
 * Other modules and the app use it through this file only.
 */
export { eventFanoutQueue, type EventRow, type EventType, eventTypes, findEvent, recordEvent, recordTestEvent } from './record.ts';
export { deliveryEventOf, deliveryEvents, deliveryEventsFrom, type DeliveryEventRow } from './fragments.ts';
export { registerEventRoutes } from './routes.ts';
export { EventIdParams, EventSchema, type EventView } from './schemas.ts';
export { createEventsService, type EventsService, eventView, scheduleEventRetention } from './service.ts';
