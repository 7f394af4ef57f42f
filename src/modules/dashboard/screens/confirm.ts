import type { FastifyReply, FastifyRequest } from 'fastify';
import { runAction, type ScreenRequest } from '../context.ts';
import type { Section } from '../pages/layout.tsx';
import { confirmedField, type Confirmation } from '../pages/confirm-dialog.tsx';
import { ConfirmationPage } from '../pages/confirm.tsx';

/** The fields of the posted form carried to the confirmation page (the token is issued afresh). */
function carriedFields(body: unknown): Record<string, string> {
  const fields: Record<string, string> = {};
  if (body === null || typeof body !== 'object') {
    return fields;
  }
  for (const [name, value] of Object.entries(body).slice(0, 20)) {
    if (typeof value === 'string' && name !== '_csrf' && name !== confirmedField) {
      fields[name.slice(0, 40)] = value.slice(0, 500);
    }
  }
  return fields;
}

/** Requests answered with the confirmation step: nothing was attempted yet, so the audit log leaves them out. */
const confirmationSteps = new WeakSet<FastifyRequest>();

export function isConfirmationStep(request: FastifyRequest): boolean {
  return confirmationSteps.has(request);
}

/**
 * The guard of an irreversible action (decision 0030): a POST without `confirmed=1` changes
 * nothing and answers the confirmation page (200), which says what will happen and posts the same
 * form again with `confirmed=1`. So a form posted without JavaScript, or crafted, never skips it.
 * The CSRF check (the signed-in scope's preHandler) runs before this. `confirmation` reads the
 * resource scoped by merchant and mode, so another merchant's id is 404 here as well.
 * Returns false when the form carries `confirmed=1`: the route then performs the action; true when
 * the confirmation page was sent (the route returns its reply). A boolean, not the reply: a Fastify
 * reply is thenable, so awaiting a promise of it would not give it back.
 */
export async function confirmFirst(
  view: ScreenRequest,
  request: FastifyRequest,
  /** `carry: false`: the page carries none of the posted fields (a form whose fields are secrets proves them another way). */
  options: { section: Section; back: string; confirmation: () => Confirmation | Promise<Confirmation>; carry?: boolean },
): Promise<boolean> {
  const body = request.body as Record<string, unknown> | undefined;
  if (body?.[confirmedField] === '1') {
    return false;
  }
  const confirmation = await options.confirmation();
  confirmationSteps.add(request);
  const action = request.url.split('?')[0] ?? request.url;
  await view.page((frame) => ConfirmationPage({ frame, section: options.section, action, back: options.back, confirmation, fields: options.carry === false ? {} : carriedFields(body) }));
  return true;
}

/**
 * An irreversible action on one resource: the confirmation page first (`confirmFirst`), then, on the
 * confirmed post, the action with its refusals as `?error=` on `back` and `notice` on success (`runAction`).
 */
export async function confirmThenRun(
  view: ScreenRequest,
  request: FastifyRequest,
  reply: FastifyReply,
  options: { section: Section; back: string; confirmation: () => Confirmation | Promise<Confirmation>; notice: string; action: () => Promise<unknown> },
): Promise<FastifyReply> {
  if (await confirmFirst(view, request, options)) {
    return reply;
  }
  return runAction(reply, options.back, options.notice, options.action);
}
