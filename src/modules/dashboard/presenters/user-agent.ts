/**
 * A readable name for a browser's User-Agent header ("Chrome 131 on macOS"), for the list of a user's
 * sessions. Only the few browsers and systems people sign in with are named; the order matters
 * (Edge and Opera say "Chrome" too, Chrome says "Safari"). Anything else is "Unknown browser".
 */
const browsers: ReadonlyArray<[name: string, pattern: RegExp]> = [
  ['Edge', /Edg(?:e|A|iOS)?\/(\d+)/],
  ['Opera', /(?:OPR|Opera)\/(\d+)/],
  ['Firefox', /(?:Firefox|FxiOS)\/(\d+)/],
  ['Chrome', /(?:Chrome|CriOS)\/(\d+)/],
  ['Safari', /Version\/(\d+)[.\d]* (?:Mobile\/\S+ )?Safari\//],
  ['curl', /^curl\/(\d+)/],
];

const systems: ReadonlyArray<[name: string, pattern: RegExp]> = [
  ['iOS', /iPhone|iPad|iPod/],
  ['Android', /Android/],
  ['ChromeOS', /CrOS/],
  ['Windows', /Windows/],
  ['macOS', /Mac OS X|Macintosh/],
  ['Linux', /Linux/],
];

export function describeUserAgent(userAgent: string | null): string {
  if (!userAgent) {
    return 'Unknown browser';
  }
  const browser = browsers.map(([name, pattern]) => [name, pattern.exec(userAgent)?.[1]] as const).find(([, version]) => version !== undefined);
  const system = systems.find(([, pattern]) => pattern.test(userAgent))?.[0];
  const browserName = browser ? `${browser[0]} ${browser[1]}` : 'Unknown browser';
  return system ? `${browserName} on ${system}` : browserName;
}
