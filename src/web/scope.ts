import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { JSX } from 'hono/jsx/jsx-runtime';
import type { Api } from '../http/types.ts';
import { toAppError } from '../http/core.ts';
import { isExpected } from '../http/errors.ts';
import { createCsrf, createNonce, setPageSecurityHeaders, type Csrf, type ExtraSources } from './security.ts';
import { ErrorPage } from './error-page.tsx';

export interface RenderOptions {
  status?: number;
  /** Origins forms on this page may post or redirect to (the merchant's return URLs). */
  formActions?: readonly string[];
  /** Origins this page state may also load from (a provider's SDK); see `ExtraSources`. */
  sources?: ExtraSources;
  /**
   * `strict-origin`: send our origin (never the path, which holds the page's link) as Referer,
   * for SDKs whose tokens are bound to a referrer pattern. Default: no referrer.
   */
  referrerPolicy?: 'strict-origin';
}

/** The distinct origins of the given URLs (a merchant's return URLs), for `RenderOptions.formActions`; unset or unparsable URLs add none. */
export function formActionOrigins(...urls: ReadonlyArray<string | null | undefined>): string[] {
  const origins = new Set<string>();
  for (const url of urls) {
    if (!url) {
      continue;
    }
    try {
      origins.add(new URL(url).origin);
    } catch {
      // not a URL: no origin to allow
    }
  }
  return [...origins];
}

export interface WebTools {
  csrf: Csrf;
  /** Renders a page: `page` receives the per-response CSP nonce for its style/script elements. */
  render(reply: FastifyReply, page: (nonce: string) => JSX.Element, options?: RenderOptions): Promise<FastifyReply>;
}

export async function renderHtml(reply: FastifyReply, page: (nonce: string) => JSX.Element, options: RenderOptions = {}): Promise<FastifyReply> {
  const nonce = createNonce();
  setPageSecurityHeaders(reply, nonce, options.formActions, { ...(options.sources ? { sources: options.sources } : {}), ...(options.referrerPolicy ? { referrerPolicy: options.referrerPolicy } : {}) });
  const html = `<!doctype html>${String(await page(nonce).toString())}`;
  return reply
    .code(options.status ?? 200)
    .type('text/html; charset=utf-8')
    .send(html);
}

/**
 * Registers server-rendered routes (hosted pages, dashboard) in their own scope: urlencoded form
 * bodies, cookies, CSRF, security headers, and HTML error pages instead of JSON envelopes.
 */
export async function registerWebScope(
  app: Api,
  options: { csrfSecret: Buffer; secureCookies: boolean; prefix?: string },
  register: (web: Api, tools: WebTools) => void | Promise<void>,
): Promise<void> {
  const csrf = createCsrf(options.csrfSecret, { secureCookies: options.secureCookies });
  await app.register(
    async (scope) => {
      const web = scope.withTypeProvider<TypeBoxTypeProvider>() as unknown as Api;
      await web.register(cookie);
      await web.register(formbody, { bodyLimit: 64 * 1024 });
      web.setErrorHandler(async (error: unknown, request: FastifyRequest, reply: FastifyReply) => {
        const appError = toAppError(error);
        if (isExpected(appError)) {
          request.log.info({ errorCode: appError.code }, appError.message);
        } else {
          request.log.error({ err: error, errorCode: appError.code }, 'unhandled error on a page');
        }
        const message = isExpected(appError) ? appError.message : 'Something went wrong on our side. Please try again in a moment.';
        return renderHtml(reply, (nonce) => ErrorPage({ nonce, status: appError.statusCode, message, requestId: request.id }), { status: appError.statusCode });
      });
      await register(web, { csrf, render: renderHtml });
    },
    options.prefix ? { prefix: options.prefix } : {},
  );
}
