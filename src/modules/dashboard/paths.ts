/**
 * Dashboard URLs. The mode is a path segment (`/dashboard/sandbox/…`, `/dashboard/live/…`) rather
 * than a cookie: a link always shows the mode it was copied in, two tabs can show both modes, and
 * every read model gets the mode from the URL it answers.
 */
export const modes = ['sandbox', 'live'] as const;
export type Mode = (typeof modes)[number];

export const dashboardPrefix = '/dashboard';

export function isMode(value: unknown): value is Mode {
  return value === 'sandbox' || value === 'live';
}

export function livemodeOf(mode: Mode): boolean {
  return mode === 'live';
}

export function modePath(mode: Mode, path = ''): string {
  return `${dashboardPrefix}/${mode}${path}`;
}

/** Builds `path?query` from the defined, non-empty values only. */
export function withQuery(path: string, query: Record<string, string | number | undefined | null>): string {
  const parameters = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== null && value !== '') {
      parameters.set(key, String(value));
    }
  }
  const text = parameters.toString();
  return text === '' ? path : `${path}?${text}`;
}
