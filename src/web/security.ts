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
export function contentSecurityPolicy(nonce: string, formActions: readonly string[] = [], sources: ExtraSources = {}): string {
  return policyFor(`'nonce-${nonce}'`, formActions, [], sources);
}

/**
 * Origins one page state may load from beyond its own, per directive (an identity provider's
 * capture SDK on the step-up page); every other page keeps the strict policy.
 */
export interface ExtraSources {
  readonly script?: readonly string[];
  readonly style?: readonly string[];
  readonly font?: readonly string[];
  readonly connect?: readonly string[];
  readonly frame?: readonly string[];
  readonly img?: readonly string[];
}

/**
 * The same policy for pages made of static files that cannot carry a per-response nonce (the API
 * reference, @fastify/swagger-ui): scripts and styles only from our origin, no inline script at all.
 * Fonts and images as data: URLs are what Swagger UI's stylesheet embeds.
 */
export const staticPageContentSecurityPolicy = policyFor("'self'", [], ["font-src 'self' data:"]);

function policyFor(scriptAndStyleSource: string, formActions: readonly string[], extra: readonly string[] = [], sources: ExtraSources = {}): string {
  const more = (origins: readonly string[] | undefined) => (origins ?? []).map((origin) => ` ${origin}`).join('');
  return [
    "default-src 'none'",
    `script-src ${scriptAndStyleSource}${more(sources.script)}`,
    `style-src ${scriptAndStyleSource}${more(sources.style)}`,
    `img-src 'self' data:${more(sources.img)}`,
    ...(sources.font?.length ? [`font-src${more(sources.font)}`] : []),
    ...(sources.frame?.length ? [`frame-src${more(sources.frame)}`] : []),
    ...extra,
    `connect-src 'self'${more(sources.connect)}`,
    `form-action 'self'${formActions.map((origin) => ` ${origin}`).join('')}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
}

/**
 * An e-mail's HTML part, framed by the dashboard's inbox: as a mail client shows it, but with no
 * script, no network (images only as data: URLs), no forms, and a unique origin (`sandbox`). Only
 * our own pages may frame it.
 */
export function setEmailPreviewHeaders(reply: FastifyReply): void {
  reply.header('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'none'; base-uri 'none'; frame-ancestors 'self'; sandbox");
  reply.header('X-Content-Type-Options', 'nosniff');
  reply.header('X-Frame-Options', 'SAMEORIGIN');
  reply.header('Referrer-Policy', 'no-referrer');
  reply.header('Cache-Control', 'no-store');
}

/** Every page's headers but the CSP and caching: no sniffing, no framing (for browsers without frame-ancestors), no referrer. */
export function setFrameHeaders(reply: FastifyReply): void {
  reply.header('X-Content-Type-Options', 'nosniff');
  reply.header('X-Frame-Options', 'DENY');
  reply.header('Referrer-Policy', 'no-referrer');
}

export function setPageSecurityHeaders(reply: FastifyReply, nonce: string, formActions: readonly string[] = [], options: { sources?: ExtraSources; referrerPolicy?: 'strict-origin' } = {}): void {
  reply.header('Content-Security-Policy', contentSecurityPolicy(nonce, formActions, options.sources));
  setFrameHeaders(reply);
  if (options.referrerPolicy) {
    reply.header('Referrer-Policy', options.referrerPolicy);
  }
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
