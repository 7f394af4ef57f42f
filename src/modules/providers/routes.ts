import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { Envelope, succeeded } from '../../http/schemas.ts';
import type { ProviderWebhookHandler } from './types.ts';

const providerWebhookBodyLimit = 1024 * 1024;

/**
 * `POST /providers/<provider>/webhooks` for each configured provider. The body is kept as raw bytes
 * (any content type) in this scope only: signatures are computed over exactly what was sent. No API
 * key: the provider's signature is the authentication. Answers `{received: true}` once the event is
 * recorded (or was already); a bad signature answers 400 in the envelope and records nothing.
 */
export async function registerProviderWebhookRoutes(app: FastifyInstance, handlers: readonly ProviderWebhookHandler[]): Promise<void> {
  if (handlers.length === 0) {
    return;
  }
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: providerWebhookBodyLimit }, (_request, body, done) => done(null, body));
    for (const handler of handlers) {
      scope.post(
        `/providers/${handler.provider}/webhooks`,
        {
          schema: {
            tags: ['Provider webhooks'],
            summary: `Receives ${handler.provider}'s signed webhooks (configure this URL at ${handler.provider})`,
            security: [],
            response: { 200: Envelope(Type.Object({ received: Type.Literal(true) })) },
          },
        },
        async (request) => {
          const rawBody = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
          await handler.receive({ rawBody, headers: request.headers });
          return succeeded({ received: true as const });
        },
      );
    }
  });
}
