/**
 * RFC 8785 (JSON Canonicalization Scheme) for values that came from JSON.parse: object members
 * sorted by UTF-16 code units, no whitespace, strings and numbers as ECMAScript's JSON.stringify
 * writes them (which is what the RFC specifies). The webhook body `signature` is an HMAC over this.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') {
    return JSON.stringify(value);
  }
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) {
      throw new TypeError('canonicalJson: numbers must be finite');
    }
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) {
    return `[${value.map((item: unknown) => canonicalJson(item)).join(',')}]`;
  }
  if (typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const members = Object.keys(record)
      .filter((key) => record[key] !== undefined)
      // Default sort compares UTF-16 code units, as RFC 8785 §3.2.3 requires.
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`);
    return `{${members.join(',')}}`;
  }
  throw new TypeError(`canonicalJson: ${typeof value} has no JSON form`);
}
