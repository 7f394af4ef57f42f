import assert from 'node:assert/strict';
import type { EventType } from '../../src/modules/events/record.ts';
import { createTestContext, json, type TestContext, type TestMerchant } from './context.ts';
import { emitEvent } from './webhooks.ts';

export interface EventBody {
  id: string;
  type: string;
  createdAt: number;
  livemode: boolean;
  data: Record<string, unknown>;
}
export interface EventPage {
  events: EventBody[];
  hasMore: boolean;
  nextCursor?: string;
}
export type CreatedEvent = { id: string; type: EventType; livemode: boolean; createdAt: number };

/**
 * The `before` of the GET /v1/events suites: a live-enabled merchant with 25 events (three types, every
 * fifth live, two per millisecond so the id breaks the tie) and another merchant with one.
 * `created` is newest first, as the API lists them.
 */
export async function openEventListSuite(): Promise<{ context: TestContext; merchant: TestMerchant; other: TestMerchant; created: CreatedEvent[] }> {
  const context = await createTestContext();
  const merchant = await context.createMerchant({ live: true });
  const other = await context.createMerchant();
  const created: CreatedEvent[] = [];
  const types: EventType[] = ['PAYMENT_SUCCEEDED', 'PAYMENT_EXPIRED', 'PAYOUT_PAGE_UPDATED'];
  for (let index = 0; index < 25; index += 1) {
    const type = types[index % 3] ?? 'PAYMENT_SUCCEEDED';
    const livemode = index % 5 === 0;
    // Two events share each millisecond: the id breaks the tie.
    if (index % 2 === 0) {
      context.clock.advance(1_000);
    }
    const event = await emitEvent(context, merchant, { type, livemode, data: { index } });
    created.push({ id: event.id, type, livemode, createdAt: event.createdAt.getTime() });
  }
  // Newest first; within one millisecond the id decides (ids are random after their time part).
  created.sort((left, right) => right.createdAt - left.createdAt || (left.id < right.id ? 1 : -1));
  await emitEvent(context, other, { data: { index: -1 } });
  return { context, merchant, other, created };
}

/** One page of GET /v1/events (200 asserted), as the suite's merchant unless another key is given; `current` is read at each call. */
export function eventPages(current: () => { context: TestContext; merchant: TestMerchant }) {
  return async function page(query: string, apiKey = current().merchant.apiKey): Promise<EventPage> {
    const response = await current().context.request({ method: 'GET', url: `/v1/events?${query}`, apiKey });
    assert.equal(response.statusCode, 200, response.body);
    return json<{ data: EventPage }>(response).data;
  };
}
