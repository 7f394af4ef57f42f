// The load generator: a child process (forked by harness.ts) that runs autocannon for each spec it
// is sent, so the client neither shares the servers' event loop nor counts in their CPU time. Not a
// bench: run.ts never lists it.
import autocannon, { type RawRequest, type RawResult } from 'autocannon';
import type { LoadSpec } from './harness.ts';

/** Sets `path` (`a.b.c`: nested objects, created when missing) in `body`. */
function setField(body: Record<string, unknown>, path: string, value: string): void {
  const keys = path.split('.');
  let target = body;
  for (const key of keys.slice(0, -1)) {
    const next = target[key];
    target = typeof next === 'object' && next !== null ? (next as Record<string, unknown>) : (target[key] = {});
  }
  target[keys[keys.length - 1] ?? path] = value;
}

/** The raw result (histograms encoded, as in autocannon's own worker mode); harness.ts aggregates. */
async function runLoad(spec: LoadSpec): Promise<RawResult> {
  let sequence = 0;
  const nextRequest = (request: RawRequest): RawRequest => {
    const n = sequence++;
    const path = spec.paths[n % spec.paths.length] ?? '/';
    const variant = spec.variants?.[n % spec.variants.length];
    const headers = { ...request.headers, ...variant?.headers };
    if (!spec.body) {
      return { ...request, method: spec.method, path, headers };
    }
    const body: Record<string, unknown> = { ...structuredClone(spec.body), ...variant?.body };
    for (const field of [spec.uniqueField, ...(spec.uniqueFields ?? [])]) {
      if (field) {
        setField(body, field, `${spec.uniquePrefix ?? 'bench'}-${n}`);
      }
    }
    return { ...request, method: spec.method, path, headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) };
  };
  return (await autocannon({
    url: spec.origin,
    connections: spec.connections,
    duration: spec.durationSeconds,
    pipelining: 1,
    timeout: 10,
    headers: spec.headers,
    requests: [{ setupRequest: nextRequest }],
    // Raw histograms, so several rounds can be merged exactly.
    skipAggregateResult: true,
  })) as RawResult;
}

function reply(message: unknown): void {
  process.send?.(message);
}

process.on('message', (message: { kind?: string; id?: number; spec?: LoadSpec }) => {
  if (message?.kind !== 'paysail-bench-load' || !message.spec) {
    return;
  }
  runLoad(message.spec).then(
    (raw) => reply({ kind: 'paysail-bench-result', id: message.id, raw }),
    (error: unknown) => reply({ kind: 'paysail-bench-result', id: message.id, error: error instanceof Error ? (error.stack ?? error.message) : String(error) }),
  );
});
// The harness closes the channel when it is done (or dies): leave then.
process.on('disconnect', () => process.exit(0));
