import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import type { TestContext, TestMerchant } from '../../helpers/context.ts';

/**
 * A minimal browser over `app.inject`: keeps cookies, follows nothing by itself, and reads the CSRF
 * token from the last page it got, as a form on that page would send it.
 */
let clientCounter = 0;

/** Each client signs in from its own address, as separate browsers would (sign-in is rate limited per address, per e-mail and per both). */
function nextAddress(): string {
  clientCounter += 1;
  return `10.9.${Math.floor(clientCounter / 250)}.${(clientCounter % 250) + 1}`;
}

export class DashboardClient {
  readonly cookies = new Map<string, string>();
  lastPage = '';
  /** The browser's User-Agent header, when a test needs one (the list of sessions names the browser). */
  userAgent: string | undefined;

  constructor(
    private readonly context: TestContext,
    private readonly ip = nextAddress(),
  ) {}

  private cookieHeader(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  private headers(extra: Record<string, string> = {}): Record<string, string> {
    return { cookie: this.cookieHeader(), ...(this.userAgent ? { 'user-agent': this.userAgent } : {}), ...extra };
  }

  private keepCookies(response: LightMyRequestResponse): void {
    for (const cookie of response.cookies) {
      if (cookie.value === '' || (cookie.expires instanceof Date && cookie.expires.getTime() < Date.now())) {
        this.cookies.delete(cookie.name);
      } else {
        this.cookies.set(cookie.name, cookie.value);
      }
    }
  }

  async get(url: string): Promise<LightMyRequestResponse> {
    const response = await this.context.app.inject({ method: 'GET', url, remoteAddress: this.ip, headers: this.headers() });
    this.keepCookies(response);
    if (String(response.headers['content-type'] ?? '').startsWith('text/html')) {
      this.lastPage = response.body;
    }
    return response;
  }

  /** The `_csrf` value of the forms on the last page. */
  csrfToken(): string {
    const match = /name="_csrf" value="([^"]+)"/.exec(this.lastPage);
    assert.ok(match?.[1], 'the last page has a form with a CSRF token');
    return match[1];
  }

  /** Posts a form; `_csrf` is the last page's token unless given (use `null` to leave it out). */
  async post(url: string, fields: Record<string, string> = {}, options: { csrf?: string | null } = {}): Promise<LightMyRequestResponse> {
    const csrf = options.csrf === undefined ? this.csrfToken() : options.csrf;
    const body = new URLSearchParams({ ...fields, ...(csrf === null ? {} : { _csrf: csrf }) }).toString();
    const response = await this.context.app.inject({
      method: 'POST',
      url,
      remoteAddress: this.ip,
      headers: this.headers({ 'content-type': 'application/x-www-form-urlencoded' }),
      payload: body,
    });
    this.keepCookies(response);
    if (String(response.headers['content-type'] ?? '').startsWith('text/html')) {
      this.lastPage = response.body;
    }
    return response;
  }

  /** Signs in with the merchant's dashboard user; returns the redirect answer. */
  async signIn(user: TestMerchant['dashboardUser']): Promise<LightMyRequestResponse> {
    await this.get('/dashboard/sign-in');
    const response = await this.post('/dashboard/sign-in', { email: user.email, password: user.password });
    assert.equal(response.statusCode, 303, response.body);
    return response;
  }
}

export async function signedInClient(context: TestContext, merchant: TestMerchant, ip?: string): Promise<DashboardClient> {
  const client = new DashboardClient(context, ip);
  await client.signIn(merchant.dashboardUser);
  return client;
}

/** The visible text of an HTML page (tags dropped, entities of interest decoded), for assertions. */
export function textOf(html: string): string {
  return html
    .replace(/<script[\s\S]*?<\/script>/g, ' ')
    .replace(/<style[\s\S]*?<\/style>/g, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/\s+/g, ' ');
}
