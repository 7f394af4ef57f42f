import type { Database } from '../../db/client.ts';
import { enqueueJob } from '../../jobs/queue.ts';

/** The dedupe key of a provider's event: a redelivery of the same event id enqueues nothing. */
export function providerEventKey(provider: string, eventId: string): string {
  return `provider-event:${provider}:${eventId}`;
}

/**
 * Records one verified provider event as a job on `queue` (payload as given), exactly once per
 * (provider, event id): the jobs table's unique dedupe key is the inbox. Returns false for a
 * duplicate delivery. The job's handler fetches the object from the provider before acting.
 */
export async function recordProviderEvent(
  database: Database,
  now: Date,
  input: { provider: string; eventId: string; queue: string; payload: unknown },
): Promise<boolean> {
  const id = await database.transaction((tx) => enqueueJob(tx, now, input.queue, input.payload, { dedupeKey: providerEventKey(input.provider, input.eventId) }));
  return id !== null;
}
