/**
 * Sandbox conversion rates to US dollars (docs/guides/fraud-reports.md), in millionths of a dollar per
 * unit so the arithmetic stays in integers. Fixed on purpose: reports must be reproducible.
 */
export const usdRatesMicros: Readonly<Record<string, number>> = {
  USD: 1_000_000,
  EUR: 1_080_000,
  GBP: 1_270_000,
};

/** Minor units of `currency` → a USD amount with two places ("12.34"), rounded half up. */
export function toUsdString(amountMinor: number, currency: string): string {
  const rate = usdRatesMicros[currency];
  if (rate === undefined) {
    throw new Error(`no sandbox USD rate for ${currency}`);
  }
  const cents = Math.floor((amountMinor * rate + 500_000) / 1_000_000);
  return formatCents(cents);
}

export function formatCents(cents: number): string {
  return `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
}

/** "12", "12.3", "12.34" → cents; null when not a non-negative amount with at most two places. */
export function parseDecimalToCents(value: string): number | null {
  const match = /^(\d{1,12})(?:\.(\d{1,2}))?$/.exec(value.trim());
  if (!match) {
    return null;
  }
  return Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0'));
}
