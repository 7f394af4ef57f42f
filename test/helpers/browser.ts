import type { LightMyRequestResponse } from 'fastify';
import type { Api } from '../../src/http/types.ts';

/**
 * A tiny cookie-keeping client for the hosted pages through `inject`: GETs, urlencoded form POSTs
 * with the page's CSRF token, and the cookies the server set (path-scoped, like a browser).
 */
export class FormClient {
  private readonly cookies = new Map<string, { value: string; path: string }>();
  lastHtml = '';

  constructor(private readonly app: Api) {}

  private cookiesFor(url: string): Record<string, string> {
    const path = url.split('?')[0] ?? '/';
    const sent: Record<string, string> = {};
    for (const [name, cookie] of this.cookies) {
      if (path === cookie.path || path.startsWith(cookie.path.endsWith('/') ? cookie.path : `${cookie.path}/`) || cookie.path === '/') {
        sent[name] = cookie.value;
      }
    }
    return sent;
  }

  private remember(response: LightMyRequestResponse): void {
    for (const cookie of response.cookies as Array<{ name: string; value: string; path?: string; maxAge?: number; expires?: Date }>) {
      if (cookie.value === '' || (cookie.maxAge !== undefined && cookie.maxAge <= 0)) {
        this.cookies.delete(cookie.name);
      } else {
        this.cookies.set(cookie.name, { value: cookie.value, path: cookie.path ?? '/' });
      }
    }
    if (String(response.headers['content-type'] ?? '').startsWith('text/html')) {
      this.lastHtml = response.body;
    }
  }

  cookie(name: string): string | undefined {
    return this.cookies.get(name)?.value;
  }

  setCookie(name: string, value: string, path = '/'): void {
    this.cookies.set(name, { value, path });
  }

  async get(url: string): Promise<LightMyRequestResponse> {
    const response = await this.app.inject({ method: 'GET', url, cookies: this.cookiesFor(url) });
    this.remember(response);
    return response;
  }

  /** The CSRF token of the last HTML page (every form of a page carries the same one). */
  csrfToken(): string {
    const match = /name="_csrf" value="([^"]+)"/.exec(this.lastHtml);
    if (!match?.[1]) {
      throw new Error('no CSRF token on the last page');
    }
    return match[1];
  }

  async post(url: string, fields: Record<string, string>, options: { csrf?: boolean } = {}): Promise<LightMyRequestResponse> {
    const body = new URLSearchParams({ ...(options.csrf === false ? {} : { _csrf: this.csrfToken() }), ...fields }).toString();
    const response = await this.app.inject({ method: 'POST', url, cookies: this.cookiesFor(url), headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: body });
    this.remember(response);
    return response;
  }
}

/** The hidden fields of a page's forms but the CSRF token (what a browser posts with them). */
export function hiddenFields(html: string): Record<string, string> {
  return Object.fromEntries([...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)].filter((match) => match[1] !== '_csrf').map((match) => [match[1] ?? '', match[2] ?? '']));
}

/** The text content of an HTML page, roughly (tags removed, entities of the escaper decoded). */
export function visibleText(html: string): string {
  return html
    .replace(/<style[\s\S]*?<\/style>/g, '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ');
}
