import type { FastifyReply } from 'fastify';
import type { Api } from '../../../http/types.ts';
import { AppError } from '../../../http/errors.ts';
import type { PaymentPagesService } from '../../payment-pages/index.ts';
import type { PayoutPagesService } from '../../payout-pages/index.ts';
import { screen, type ScreenRequest, type ScreenTools } from '../context.ts';
import { formProblem, formValues, newFormReference, paymentPageBody, payoutPageBody, type CreateFormProblem, type CreateFormValues } from '../create-forms.ts';
import { modePath, withQuery } from '../paths.ts';
import { NewPaymentPagePage, NewPayoutPagePage } from '../pages/create-pages.tsx';

const payoutFields = ['customerReferenceId', 'customerEmail', 'amount', 'fundingCurrency', 'releaseMethod', 'clientReferenceId'] as const;
const paymentFields = ['customerReferenceId', 'customerEmail', 'amount', 'currency', 'description', 'clientReferenceId'] as const;

/**
 * Creating payout and payment pages from the dashboard (`/:mode/payout-pages/new`,
 * `/:mode/payment-pages/new`): the form becomes the API's body, checked by the API's own schema
 * (`bodyError`), and goes to the same service call as `POST /v1/payout_pages` / `POST
 * /v1/payment_pages`, in the screen's mode. A refused form is shown again (400/409) with the API's
 * message beside the field it names; a created page opens with its link.
 */
export function registerCreatePageScreens(web: Api, tools: ScreenTools, deps: { payoutPages: PayoutPagesService; paymentPages: PaymentPagesService }): void {
  async function submit(
    view: ScreenRequest,
    reply: FastifyReply,
    input: { section: 'payout-pages' | 'payment-pages'; create: () => Promise<{ id: string }>; values: CreateFormValues; render: (problem: CreateFormProblem) => Parameters<ScreenRequest['page']>[0] },
  ): Promise<FastifyReply> {
    try {
      const created = await input.create();
      return reply.redirect(withQuery(modePath(view.mode, `/${input.section}/${encodeURIComponent(created.id)}`), { notice: `${input.section === 'payout-pages' ? 'payout' : 'payment'}-page-created` }), 303);
    } catch (error) {
      const problem = formProblem(error) ?? (error instanceof AppError && error.statusCode === 409 ? { message: error.message, field: error.code === 'DUPLICATE_CLIENT_REFERENCE_ID' ? 'clientReferenceId' : '' } : null);
      if (!problem || !(error instanceof AppError)) {
        throw error;
      }
      return view.page(input.render(problem), { status: error.statusCode });
    }
  }

  web.get('/:mode/payout-pages/new', async (request, reply) => {
    const view = screen(tools, request, reply);
    const values = { fundingCurrency: 'USD', releaseMethod: 'MANUAL', clientReferenceId: newFormReference('payout') };
    return view.page((frame) => NewPayoutPagePage({ frame, values }));
  });

  web.post('/:mode/payout-pages', async (request, reply) => {
    const view = screen(tools, request, reply);
    const values = formValues(request.body, payoutFields);
    return submit(view, reply, {
      section: 'payout-pages',
      values,
      create: () => deps.payoutPages.createPayoutPage(view.session.merchant, view.livemode, payoutPageBody(request.body)),
      render: (problem) => (frame) => NewPayoutPagePage({ frame, values, problem }),
    });
  });

  web.get('/:mode/payment-pages/new', async (request, reply) => {
    const view = screen(tools, request, reply);
    const values = { currency: 'USD', clientReferenceId: newFormReference('payment') };
    return view.page((frame) => NewPaymentPagePage({ frame, values }));
  });

  web.post('/:mode/payment-pages', async (request, reply) => {
    const view = screen(tools, request, reply);
    const values = formValues(request.body, paymentFields);
    return submit(view, reply, {
      section: 'payment-pages',
      values,
      create: () => deps.paymentPages.createPage(view.session.merchant, view.livemode, paymentPageBody(request.body)),
      render: (problem) => (frame) => NewPaymentPagePage({ frame, values, problem }),
    });
  });
}
