/**
 * The e-mail outbox (also the sandbox inbox): sealed at enqueue, sent by the SMTP job, purged by retention.
 * Other modules and the app use it through this file only.
 */
export { enqueueEmail } from './enqueue.ts';
export { deleteEmailsAbout, emailsAboutForExport } from './erasure.ts';
export { emailBodyRetention } from './retention.ts';
export { registerAdminEmailRoutes } from './routes.ts';
export { openEmailContentOrPlaceholder, openEmailField, type SealedEmailField, unreadableEmailField } from './sealing.ts';
export { createEmailService, type EmailService } from './service.ts';
export { type RenderedEmail, renderEmail } from './templates.ts';
