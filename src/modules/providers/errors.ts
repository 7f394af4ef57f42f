/**
 * Provider packages' errors carry what was sent and received: request bodies (names, addresses,
 * payment methods), response bodies and headers (Authorization). Such an error must never reach a
 * log line, a job's stored `last_error` or an answer. These helpers replace it by a plain Error that
 * names the provider, the call and the error's kind, status and code only.
 */
export function plainProviderError(provider: string, call: string, error: unknown): Error {
  const details = (error ?? {}) as { name?: unknown; type?: unknown; status?: unknown; statusCode?: unknown; code?: unknown; response?: { status?: unknown } };
  const pick = (value: unknown) => (typeof value === 'string' || typeof value === 'number' ? String(value).slice(0, 60) : undefined);
  const kind = pick(details.type) ?? pick(details.name) ?? 'Error';
  const status = pick(details.statusCode) ?? pick(details.status) ?? pick(details.response?.status);
  const code = pick(details.code);
  const plain = new Error(`${provider} ${call} failed: ${kind}${status ? ` (HTTP ${status})` : ''}${code ? ` [${code}]` : ''}`);
  plain.name = `${provider[0]?.toUpperCase() ?? ''}${provider.slice(1)}CallError`;
  return plain;
}

/** Runs one provider call; a failure is rethrown as `plainProviderError`. */
export async function providerCall<T>(provider: string, call: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw plainProviderError(provider, call, error);
  }
}

/** The same adapter, each of its methods rethrowing failures as `plainProviderError` (named by the method). */
export function withPlainErrors<T extends object>(provider: string, adapter: T): T {
  const wrapped: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(adapter)) {
    wrapped[name] =
      typeof value === 'function'
        ? (...args: unknown[]) => providerCall(provider, name, async () => (value as (...inner: unknown[]) => unknown).apply(adapter, args))
        : value;
  }
  return wrapped as T;
}
