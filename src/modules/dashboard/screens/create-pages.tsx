import type { JSX } from 'hono/jsx/jsx-runtime';
import type { Api } from '../../../http/types.ts';
import { AppError } from '../../../http/errors.ts';
import type { PaymentPagesService } from '../../payment-pages/index.ts';
import type { PayoutPagesService } from '../../payout-pages/index.ts';
import { screen, type ScreenRequest, type ScreenTools } from '../context.ts';
import { formProblem, formValues, newFormReference, paymentPageBody, payoutPageBody, type CreateFormValues } from '../create-forms.ts';
import { modePath, withQuery } from '../paths.ts';
import { NewPaymentPagePage, NewPayoutPagePage, type CreateFormProps } from '../pages/create-pages.tsx';

/** One create form: its section, the form's fields and first values, the service call and the page. */
interface CreateForm {
  section: 'payout-pages' | 'payment-pages';
  /** The `?notice=` the created page opens with. */
  notice: string;
  fields: readonly string[];
  initialValues: () => CreateFormValues;
  create: (view: ScreenRequest, form: unknown) => Promise<{ id: string }>;
  Page: (props: CreateFormProps) => JSX.Element;
}

/**
 * Creating payout and payment pages from the dashboard (`/:mode/payout-pages/new`,
 * `/:mode/payment-pages/new`): the form becomes the API's body, checked by the API's own schema
 * (`bodyError`), and goes to the same service call as `POST /v1/payout_pages` / `POST
 * /v1/payment_pages`, in the screen's mode. A refused form is shown again (400/409) with the API's
 * message beside the field it names; a created page opens with its link.
 */
export function registerCreatePageScreens(web: Api, tools: ScreenTools, deps: { payoutPages: PayoutPagesService; paymentPages: PaymentPagesService }): void {
  const formOf: ReadonlyArray<CreateForm> = [
    {
      section: 'payout-pages',
      notice: 'payout-page-created',
      fields: ['customerReferenceId', 'customerEmail', 'amount', 'fundingCurrency', 'releaseMethod', 'clientReferenceId'],
      initialValues: () => ({ fundingCurrency: 'USD', releaseMethod: 'MANUAL', clientReferenceId: newFormReference('payout') }),
      create: (view, form) => deps.payoutPages.createPayoutPage(view.session.merchant, view.livemode, payoutPageBody(form)),
      Page: NewPayoutPagePage,
    },
    {
      section: 'payment-pages',
      notice: 'payment-page-created',
      fields: ['customerReferenceId', 'customerEmail', 'amount', 'currency', 'description', 'clientReferenceId'],
      initialValues: () => ({ currency: 'USD', clientReferenceId: newFormReference('payment') }),
      create: (view, form) => deps.paymentPages.createPage(view.session.merchant, view.livemode, paymentPageBody(form)),
      Page: NewPaymentPagePage,
    },
  ];

  for (const { section, notice, fields, initialValues, create, Page } of formOf) {
    web.get(`/:mode/${section}/new`, async (request, reply) => {
      const view = screen(tools, request, reply);
      const values = initialValues();
      return view.page((frame) => Page({ frame, values }));
    });

    web.post(`/:mode/${section}`, async (request, reply) => {
      const view = screen(tools, request, reply);
      const values = formValues(request.body, fields);
      try {
        const created = await create(view, request.body);
        return reply.redirect(withQuery(modePath(view.mode, `/${section}/${encodeURIComponent(created.id)}`), { notice }), 303);
      } catch (error) {
        const problem = formProblem(error) ?? (error instanceof AppError && error.statusCode === 409 ? { message: error.message, field: error.code === 'DUPLICATE_CLIENT_REFERENCE_ID' ? 'clientReferenceId' : '' } : null);
        if (!problem || !(error instanceof AppError)) {
          throw error;
        }
        return view.page((frame) => Page({ frame, values, problem }), { status: error.statusCode });
      }
    });
  }
}
