import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { hmacSha256 } from '../crypto/hashing.ts';

export const csrfCookieName = 'ps_csrf';

/** A fresh nonce per response: the only scripts and styles a page may run carry it. */
export function createNonce(): string {
  return randomBytes(16).toString('base64');
}

/**
 * Strict CSP for hosted pages and the dashboard: nothing loads unless it carries the nonce or
 * comes from us; forms post only to us (and to `formActions`, e.g. the merchant's return URLs,
 * because browsers apply form-action to redirects after a POST too).
 */
export function contentSecurityPolicy(nonce: string, formActions: readonly string[] = [], provider: ProviderSources = noProviderSources): string {
  return policyFor(`'nonce-${nonce}'`, formActions, [], provider);
}

/**
 * Origins a page embedding a provider's browser fields must reach (Stripe.js: its script, its
 * frames, its API), added to exactly the directives that need them.
 */
export interface ProviderSources {
  readonly script: readonly string[];
  readonly frame: readonly string[];
  readonly connect: readonly string[];
}

const noProviderSources: ProviderSources = { script: [], frame: [], connect: [] };

const withSources = (base: string, sources: readonly string[]) => [base, ...sources].join(' ');

/**
 * The same policy for pages made of static files that cannot carry a per-response nonce (the API
 * reference, @fastify/swagger-ui): scripts and styles only from our origin, no inline script at all.
 * Fonts and images as data: URLs are what Swagger UI's stylesheet embeds.
 */
export const staticPageContentSecurityPolicy = policyFor("'self'", [], ["font-src 'self' data:"]);

function policyFor(scriptAndStyleSource: string, formActions: readonly string[], extra: readonly string[] = [], provider: ProviderSources = noProviderSources): string {
  return [
    "default-src 'none'",
    `script-src ${withSources(scriptAndStyleSource, provider.script)}`,
    `style-src ${scriptAndStyleSource}`,
    "img-src 'self' data:",
    ...extra,
    ...(provider.frame.length > 0 ? [`frame-src ${provider.frame.join(' ')}`] : []),
    `connect-src ${withSources("'self'", provider.connect)}`,
    `form-action 'self'${formActions.map((origin) => ` ${origin}`).join('')}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
}

/** Every page's headers but the CSP and caching: no sniffing, no framing (for browsers without frame-ancestors), no referrer. */
export function setFrameHeaders(reply: FastifyReply): void {
  reply.header('X-Content-Type-Options', 'nosniff');
  reply.header('X-Frame-Options', 'DENY');
  reply.header('Referrer-Policy', 'no-referrer');
}

export function setPageSecurityHeaders(reply: FastifyReply, nonce: string, formActions: readonly string[] = [], provider?: ProviderSources): void {
  reply.header('Content-Security-Policy', contentSecurityPolicy(nonce, formActions, provider));
  setFrameHeaders(reply);
  reply.header('Cache-Control', 'no-store');
}

/**
 * CSRF protection for hosted pages and the dashboard: a random cookie (HttpOnly, SameSite=Strict)
 * plus a form token = HMAC(secret, cookie ‖ scope). A cross-site form has neither the cookie nor a
 * token bound to it.
 */
export function createCsrf(secret: Buffer, options: { secureCookies: boolean }) {
  function cookieValue(request: FastifyRequest, reply: FastifyReply): string {
    const existing = request.cookies[csrfCookieName];
    if (existing && /^[A-Za-z0-9_-]{43}$/.test(existing)) {
      return existing;
    }
    const value = randomBytes(32).toString('base64url');
    reply.setCookie(csrfCookieName, value, { httpOnly: true, sameSite: 'strict', path: '/', secure: options.secureCookies });
    // Make the new value visible to a token issued later in this same request.
    request.cookies[csrfCookieName] = value;
    return value;
  }

  function tokenFor(cookie: string, scope: string): string {
    return hmacSha256(secret, `${cookie}|${scope}`).toString('base64url');
  }

  return {
    /** The token to put in a hidden `_csrf` input of a form for `scope` (e.g. the page id). */
    issue(request: FastifyRequest, reply: FastifyReply, scope: string): string {
      return tokenFor(cookieValue(request, reply), scope);
    },
    verify(request: FastifyRequest, scope: string, token: unknown): boolean {
      const cookie = request.cookies[csrfCookieName];
      if (!cookie || typeof token !== 'string' || token.length === 0) {
        return false;
      }
      const expected = Buffer.from(tokenFor(cookie, scope));
      const actual = Buffer.from(token);
      return expected.length === actual.length && timingSafeEqual(expected, actual);
    },
  };
}

export type Csrf = ReturnType<typeof createCsrf>;
