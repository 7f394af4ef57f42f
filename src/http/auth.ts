import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from './errors.ts';
import type { AuthenticatedKey, Merchant } from '../modules/merchants/index.ts';
import { constantTimeEqual } from '../crypto/hashing.ts';

declare module 'fastify' {
  interface FastifyRequest {
    auth?: AuthenticatedKey;
  }
}

/** Reads `Authorization: Basic base64(<API key>:)`; the password must be empty. */
export function parseBasicAuthorization(header: string | undefined): string | null {
  if (!header) {
    return null;
  }
  const match = /^Basic\s+([A-Za-z0-9+/=_-]+)\s*$/i.exec(header);
  if (!match?.[1]) {
    return null;
  }
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const separator = decoded.indexOf(':');
  const user = separator === -1 ? decoded : decoded.slice(0, separator);
  const password = separator === -1 ? '' : decoded.slice(separator + 1);
  if (user === '' || password !== '') {
    return null;
  }
  return user;
}

export function createMerchantAuthHook(authenticate: (rawKey: string) => Promise<AuthenticatedKey | null>) {
  return async function merchantAuth(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
    const rawKey = parseBasicAuthorization(request.headers.authorization);
    if (!rawKey) {
      throw new AppError('UNAUTHORIZED', 'Authenticate with HTTP Basic: your API key as the user name and an empty password');
    }
    const auth = await authenticate(rawKey);
    if (!auth) {
      throw new AppError('UNAUTHORIZED', 'The API key is invalid or has been revoked');
    }
    request.auth = auth;
  };
}

export function createAdminAuthHook(adminKey: () => Promise<{ verify(token: string): boolean }>) {
  return async function adminAuth(request: FastifyRequest): Promise<void> {
    const header = request.headers.authorization ?? '';
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match?.[1] || !(await adminKey()).verify(match[1])) {
      throw new AppError('UNAUTHORIZED', 'The admin API needs Authorization: Bearer <ADMIN_API_KEY>', {}, { 'WWW-Authenticate': 'Bearer realm="Paysail admin API"' });
    }
  };
}

export function requireAuth(request: FastifyRequest): AuthenticatedKey {
  if (!request.auth) {
    throw new AppError('UNAUTHORIZED', 'Authentication required');
  }
  return request.auth;
}

function liveNotEnabled(): AppError {
  return new AppError('LIVE_MODE_NOT_ENABLED', 'Live mode is not enabled for this merchant; pass livemode=false to use sandbox');
}

/** The mode a create works in: `livemode` omitted means live (docs/API.md §1). */
export function modeForCreate(merchant: Merchant, livemode: boolean | undefined): boolean {
  const live = livemode ?? true;
  if (live && !merchant.liveEnabled) {
    throw liveNotEnabled();
  }
  return live;
}

/** The mode filter for reads, actions by id and lists: undefined means "either mode". */
export function modeFilter(merchant: Merchant, livemode: boolean | undefined): boolean | undefined {
  if (livemode === true && !merchant.liveEnabled) {
    throw liveNotEnabled();
  }
  return livemode;
}

export { constantTimeEqual };
