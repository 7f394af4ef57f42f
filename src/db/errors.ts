/** True when `error` (or its cause, as drizzle wraps driver errors) is a unique-constraint violation. */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current; depth += 1) {
    const candidate = current as { code?: unknown; constraint?: unknown; message?: unknown; cause?: unknown };
    if (candidate.code === '23505') {
      if (!constraint) {
        return true;
      }
      if (candidate.constraint === constraint || (typeof candidate.message === 'string' && candidate.message.includes(constraint))) {
        return true;
      }
    }
    current = candidate.cause;
  }
  return false;
}
