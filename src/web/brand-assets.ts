import { Type } from 'typebox';
import type { FastifyReply } from 'fastify';
import type { Api } from '../http/types.ts';
import { notFound } from '../http/errors.ts';
import type { BrandingService } from '../modules/merchants/index.ts';
import { isLogoType } from '../modules/merchants/index.ts';
import { defaultFaviconPath } from './layout.tsx';

/** Paysail's icon: a sail on our accent blue. */
export const faviconSvg = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#1d4ed8"/><path d="M15 4v18H5z" fill="#fff"/><path d="M17 7l9 15h-9z" fill="#bfdbfe"/><path d="M4 24h24l-3.5 4h-17z" fill="#fff"/></svg>';

/** The same icon at 16, 32 and 48 px (PNG images in an ICO container), for browsers and tools that ask for /favicon.ico. */
const faviconIco = Buffer.from(
  'AAABAAMAEBAAAAEAIACZAQAANgAAACAgAAABACAAfQIAAM8BAAAwMAAAAQAgAMADAABMBAAAiVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAYAAAAf8/9hAAABTklEQVR4nKSSP0vDUBTFz31JG1tTNAkGxQacrIOLdXJQUNw0AUFHu9Sh/hnc1KnWzalfoN38BLr4DVzcrcVF3Lo46CKWPm8iFGz+KPUHCZf37j2cnBsVkORstg9AvQoIBYBSSER+8sgTiBov17N1mnZbx4JQxxDIHp0JIlTiGlYWRpMV2LUgiZmoO285h8W5DPSsEj8PmhT81gYvtBThpDQR1KtLYzDH1TgFTUSdlz0Djv2dpaoSSls24ggJ6BmBw23rx1lxXg+ePwkc7VjIZcPGdtmFqlCyQJ5tl10DUVicg7tuJguccnBamhDHxpoZCrQvUCyMBKtLIh0RKDleS+If9P1U9+zY7x+kefOKWqMT1EJK+ewXF80Obu/efx32e/xeH7b+SHnv4Zx/ySqGQEpcKtrU/r2SFrxhabCiSUQieUh2Obo27+rq461b+wIAAP//L4J/tgAAAAZJREFUAwDWQkjYdutLbgAAAABJRU5ErkJggolQTkcNChoKAAAADUlIRFIAAAAgAAAAIAgGAAAAc3p69AAAAjJJREFUeJzEl89OE1EUxr9zpzYqNZZKGiUWdWM10URZuTMxRiNNSVlKIgrWpQt1qzHqXl8AnkFMTeQNdKXdGGQlxqZqN3bBfwKHe0ggDJ3p3DszLb/N3DntPeebme+emZvAHtKln+nUxsoTAq4x0RV9zCIGGGgQc1Ufvyw4h981p881d36jncHp4twdIp7Uw350ljozlWuV/KddAbnC7G04NIMuokUMiQgaKPzqZWfpu9ZyCt2lzqs9l9WGWr4fpvj1wR5EpJ+Ti2NKacPBEpn0fDy6P6W2YrC1gNFbaeQHkoiK1FZEdMZmUuqIwtPRPlds8FIKYZDaCpY8KmXQd9xxxe6NZJFwCGGwEnBCFy4P97bG0wkUb2YQBisBz/StP3bUe0rhRgYZLaRjAs7nkrirzedHMkEYG7FfGcYCXkxk4QT8W8xoa0gjAdJ0TBuPrSEDBdg2HVtDBgoI03RsDNlWgFfTMcHGkG0FeDUdU0wN6SvAr+nYYGJIXwHtmo4pJob0rBDUdGwIMqSnAJOmY0qQISk3/INxgMR0neFpeTgvy1k8LEZzvx9Tlf94NdlwxZT+Pv63N/B6qoGZzwuIG8kpuV3o2krvgKruGPD4bR1f51YQF5JLcvI+t0ltfQdQ3T9hdY0x/qaG+T/riIrkkFySswVdm06WZs8e2qRv+jSehW9Oc13xVfV3+uI8b9IEug3jgdTeXoa1j/n3slfTwzo6j2xOh35XLnyQE9eb4iC251sAAAD//2wHRsoAAAAGSURBVAMAeSOyzjBxX0wAAAAASUVORK5CYIKJUE5HDQoaCgAAAA1JSERSAAAAMAAAADAIBgAAAFcC+YcAAAN1SURBVHic1JrPTxNBFMffmy1UftRCiU3EcjARqYkJiIlCDMQfRCVCowkmXIAo3NSLF02M8dedeNMDxP9ASTmIJ6OX6gXqRSHGiLEUxEQIBKRAO75phKB02/0xu3Q/aZPtzGbf++7Od95uZ12gQqBt4hhHOMEwVcc51iJCLdgI5/ABkUdTHKMclTfxcPVYpv3w/4ayi1/LPKmVx9TVA3kCiaEPPFlS3Hfmh/bPb+37R0AgNH6eGgZpsxLykzgJ6Y2FgyMbDZsCqto+nQWGr8ABkIjWDRFpAX+HzUf6uRecQTzJd1fHhyuXmfjlSSaeOih5QaUCC/1iAwPnvvvAvfSTLgUDiTQfKYG3Y0tgFTSMUlzhfoaFy82ykw81eeBosAisROTM1lkT48hPgkTcBQi3uveAHdDs2kBnnjeARHpD5VDlLwB7IAEIGARJlBYxuNZRsb29WAErQMQ6Mfa9IInrlyvAU7zdTqcaveArc4EFeKWZN0DDpre9PGOfy4XQfckPViBNwG0yrrsQVfvrD5emv7KRIqC+Zld66sxFF10Fl4IgEykC7l7VNjwqyAftLT6QiWkBeovWhdM+qYY2JcBI0SqUbGhTAowWLZmGNixArWhpRZahDQtQK1pakWVoQxlkK1p6kGFoQwJyFS2tyDC0bgFai5bm45k0tG4BWouWHswYWpcAq560zBhaswCrn7SMGlqzAKuftIwaWpMAs0VLK0YMrUmA2aKlB72GzpmVrKKlFb2GzilAVtHSgx5DZxUgu2hpRY+hsSo0zsHB2ONMC3G8AFWn3Ovz2zr7ZGNweA4eDMxm7FO9Ag8HZ2Eksgg7jchB5KIGo39432fqEKtqN/qnYXTiN+wUIrbIgatMMyJ3hrSMqXaAxCqHK4+mYHJ6FexGxBSxRQ5qiNxZikM024HmFpPQdT8GvxbWwS5ELBFTxM6GyJ0BKtFcB/w2s5Y+GyuJFFiNiCFiiZg5odzpHoEjrQ9HaJ3gODgIGlivY+GaM0yMpHUGneSUOXAO82uKq1Pknp5GZ4YOTXJU+sAhkDN6frw4kJ5bN+tALHzwuVgBp8045C/iVYPWeDgY3mjYdp9c3vLFW1K8NkAdHZBPcHi2qLhvZn3ZYyv7Wj8HQEk2MMYbqZA0ksnraW832AGHBBWpUUSIpFIYgaTybupldSzTrn8AAAD//+Iw0ZcAAAAGSURBVAMAW0sRz46jfd0AAAAASUVORK5CYII=',
  'base64',
);

/**
 * An uploaded image is never a document: it may load nothing and run nothing (even an SVG opened
 * on its own), and the browser must take the declared type. Inline styles stay (SVG logos use them).
 */
export const logoContentSecurityPolicy = "default-src 'none'; style-src 'unsafe-inline'";

/** A content-addressed file never changes, so caches keep it for a year without asking. */
const immutableCaching = 'public, max-age=31536000, immutable';

function setImageHeaders(reply: FastifyReply, contentType: string, caching: string): FastifyReply {
  return reply
    .type(contentType)
    .header('Content-Security-Policy', logoContentSecurityPolicy)
    .header('X-Content-Type-Options', 'nosniff')
    .header('Cross-Origin-Resource-Policy', 'same-origin')
    .header('Cache-Control', caching);
}

const LogoParams = Type.Object({ file: Type.String({ maxLength: 80 }) }, { additionalProperties: false });

/**
 * Images every hosted page may show, from our origin: merchants' logos at their content address
 * (`/brand/logos/<sha256>.<png|jpeg|svg>`, decision 0035) and Paysail's icon (`/favicon.ico`,
 * `/favicon.svg`). Public: a logo is on every hosted page of its merchant anyway.
 */
export function registerBrandAssetRoutes(app: Api, deps: { branding: BrandingService }): void {
  app.get('/brand/logos/:file', { schema: { hide: true, params: LogoParams } }, async (request, reply) => {
    const match = /^([0-9a-f]{64})\.([a-z]{3,4})$/.exec(request.params.file);
    const type = match?.[2];
    if (!match?.[1] || !type || !isLogoType(type)) {
      throw notFound('logo', request.params.file);
    }
    const logo = await deps.branding.findLogo(match[1], type);
    if (!logo) {
      throw notFound('logo', request.params.file);
    }
    return setImageHeaders(reply, logo.contentType, immutableCaching).header('ETag', `"${match[1]}"`).send(logo.bytes);
  });

  // The icon may change with a release, so it is cached for a day rather than for ever.
  app.get('/favicon.ico', { schema: { hide: true } }, async (_request, reply) => setImageHeaders(reply, 'image/x-icon', 'public, max-age=86400').send(faviconIco));
  app.get(defaultFaviconPath, { schema: { hide: true } }, async (_request, reply) => setImageHeaders(reply, 'image/svg+xml', 'public, max-age=86400').send(faviconSvg));
}
