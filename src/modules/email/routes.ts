import { Type } from 'typebox';
import type { Api } from '../../http/types.ts';
import { Envelope, errorResponses, succeeded } from '../../http/schemas.ts';
import type { EmailService } from './service.ts';

const EmailSchema = Type.Object(
  {
    id: Type.String({ description: 'eml_…' }),
    merchantId: Type.String(),
    livemode: Type.Boolean(),
    to: Type.String({ description: 'Recipient (decrypted).' }),
    subject: Type.String(),
    text: Type.String(),
    html: Type.String(),
    template: Type.String(),
    relatedId: Type.Union([Type.String(), Type.Null()], { description: 'What the e-mail is about (payout page, webhook endpoint, …).' }),
    status: Type.Union([Type.Literal('queued'), Type.Literal('sent'), Type.Literal('stored'), Type.Literal('failed')], {
      description: '`stored`: no SMTP_URL is configured, so the e-mail stays in the sandbox inbox.',
    }),
    attempts: Type.Integer(),
    lastError: Type.Union([Type.String(), Type.Null()]),
    createdAt: Type.Integer(),
    sentAt: Type.Union([Type.Integer(), Type.Null()]),
  },
  { $id: 'AdminEmail' },
);

const EmailListQuery = Type.Object(
  {
    merchantId: Type.Optional(Type.String({ maxLength: 100 })),
    relatedId: Type.Optional(Type.String({ maxLength: 200 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
  },
  { additionalProperties: false },
);

/**
 * `GET /admin/v1/emails`: the outbox, for operators (and the sandbox inbox). Recipient, subject and
 * bodies rest sealed and are decrypted for this answer; a field that does not open reads `(unreadable)`.
 */
export function registerAdminEmailRoutes(admin: Api, emails: EmailService): void {
  admin.get(
    '/emails',
    {
      schema: {
        tags: ['Admin'],
        security: [{ adminBearer: [] }],
        operationId: 'adminEmails_list',
        summary: 'List e-mails (newest first)',
        description: 'Every e-mail the platform queued, with its delivery status. Filters: `merchantId`, `relatedId`.',
        querystring: EmailListQuery,
        response: { 200: Envelope(Type.Object({ emails: Type.Array(EmailSchema) })), ...errorResponses() },
      },
    },
    async (request) => {
      const { merchantId, relatedId, limit } = request.query;
      return succeeded({ emails: await emails.listEmails({ limit: limit ?? 50, ...(merchantId !== undefined ? { merchantId } : {}), ...(relatedId !== undefined ? { relatedId } : {}) }) });
    },
  );
}
