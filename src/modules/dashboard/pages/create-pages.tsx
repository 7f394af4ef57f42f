import type { Child } from 'hono/jsx';
import { paymentCurrencies } from '../../payment-pages/index.ts';
import { fundingCurrencies, releaseMethods } from '../../payout-pages/index.ts';
import type { CreateFormProblem, CreateFormValues } from '../create-forms.ts';
import { modePath } from '../paths.ts';
import { CsrfField } from './components.tsx';
import { DashboardPage, type Frame } from './layout.tsx';

export interface CreateFormProps {
  frame: Frame;
  values: CreateFormValues;
  problem?: CreateFormProblem | undefined;
}

/** The API's message as a sentence ("amount must be …" → "Amount must be …"). */
function sentence(message: string | undefined): string {
  return message ? `${message.charAt(0).toUpperCase()}${message.slice(1)}` : '';
}

/** One labelled input; the refused field carries the problem beside it and `aria-invalid`. */
function Input(props: { name: string; label: string; values: CreateFormValues; problem?: CreateFormProblem | undefined; hint?: string; type?: string; inputmode?: 'decimal' | 'email' | 'text'; autocomplete?: string; required?: boolean; maxlength?: number }) {
  const invalid = props.problem?.field === props.name;
  const described = [props.hint ? `${props.name}-hint` : '', invalid ? `${props.name}-problem` : ''].filter(Boolean).join(' ');
  return (
    <div class="form-field">
      <label for={props.name}>{props.label}</label>
      {invalid ? (
        <p class="error" id={`${props.name}-problem`}>
          {sentence(props.problem?.message)}
        </p>
      ) : null}
      <input
        id={props.name}
        name={props.name}
        type={props.type ?? 'text'}
        value={props.values[props.name] ?? ''}
        required={props.required ?? true}
        maxlength={props.maxlength ?? 255}
        inputmode={props.inputmode}
        autocomplete={props.autocomplete ?? 'off'}
        aria-invalid={invalid ? 'true' : undefined}
        aria-describedby={described || undefined}
      />
      {props.hint ? (
        <p class="muted" id={`${props.name}-hint`}>
          {props.hint}
        </p>
      ) : null}
    </div>
  );
}

function Select(props: { name: string; label: string; options: ReadonlyArray<{ value: string; label: string }>; values: CreateFormValues; problem?: CreateFormProblem | undefined }) {
  const invalid = props.problem?.field === props.name;
  return (
    <div class="form-field">
      <label for={props.name}>{props.label}</label>
      <select id={props.name} name={props.name} aria-invalid={invalid ? 'true' : undefined}>
        {props.options.map((option) => (
          <option value={option.value} selected={props.values[props.name] === option.value}>
            {option.label}
          </option>
        ))}
      </select>
    </div>
  );
}

function CreateForm(props: CreateFormProps & { section: 'payout-pages' | 'payment-pages'; title: string; intro: string; submit: string; children?: Child }) {
  const { frame } = props;
  const list = modePath(frame.mode, `/${props.section}`);
  return (
    <DashboardPage frame={frame} section={props.section} title={props.title}>
      <p class="crumbs">
        <a href={list}>{props.section === 'payout-pages' ? 'Payout pages' : 'Payment pages'}</a> /
      </p>
      <h1>{props.title}</h1>
      <p>{props.intro}</p>
      {frame.mode === 'live' ? (
        <p class="notice error" role="note">
          This is live mode: the page moves real money once the customer completes it.
        </p>
      ) : null}
      <form method="post" action={list} class="card compact" aria-labelledby="create-heading" novalidate>
        <h2 id="create-heading" class="visually-hidden">
          {props.title}
        </h2>
        {props.problem ? (
          <div class="error-summary" role="alert" id="create-error">
            <p class="error">{sentence(props.problem.message)}.</p>
            {props.problem.field ? (
              <p>
                <a href={`#${props.problem.field}`}>Go to the field</a>
              </p>
            ) : null}
          </div>
        ) : null}
        <CsrfField token={frame.csrfToken} />
        {props.children}
        <button type="submit">{props.submit}</button>
      </form>
    </DashboardPage>
  );
}

function CustomerFields(props: CreateFormProps) {
  return (
    <fieldset>
      <legend>Customer</legend>
      <Input {...props} name="customerReferenceId" label="Your customer id" hint="Your id for this customer; an id Paysail does not know yet creates the customer." />
      <Input {...props} name="customerEmail" label="Customer e-mail" type="email" autocomplete="off" maxlength={254} hint="Where the page link and the receipts go." />
    </fieldset>
  );
}

/** `/:mode/payout-pages/new`: the fields of `POST /v1/payout_pages` a person sets; the reference is pre-filled and unique per form. */
export function NewPayoutPagePage(props: CreateFormProps) {
  return (
    <CreateForm {...props} section="payout-pages" title="New payout page" intro="Pay a customer out: they verify their e-mail, give their bank or wallet details and pass KYC on the hosted page." submit="Create payout page">
      <CustomerFields {...props} />
      <Input {...props} name="amount" label="Amount" inputmode="decimal" maxlength={20} hint="In the currency's units, e.g. 25.00. It is reserved on your balance now." />
      <Select {...props} name="fundingCurrency" label="Paid from balance" options={fundingCurrencies.map((value) => ({ value, label: value }))} />
      <Select
        {...props}
        name="releaseMethod"
        label="Release"
        options={releaseMethods.map((value) => ({ value, label: value === 'MANUAL' ? 'When I release it (manual)' : 'As soon as the customer is verified (automatic)' }))}
      />
      <Input {...props} name="clientReferenceId" label="Your reference" hint="Unique per page; filled in for you. Sending this form twice never makes two pages." />
    </CreateForm>
  );
}

/** `/:mode/payment-pages/new`: the fields of `POST /v1/payment_pages` a person sets. */
export function NewPaymentPagePage(props: CreateFormProps) {
  return (
    <CreateForm {...props} section="payment-pages" title="New payment page" intro="Take a card payment: send the customer the page's link and they pay on it." submit="Create payment page">
      <CustomerFields {...props} />
      <Input {...props} name="amount" label="Amount" inputmode="decimal" maxlength={20} hint="In the currency's units, e.g. 25.00." />
      <Select {...props} name="currency" label="Currency" options={paymentCurrencies.map((value) => ({ value, label: value }))} />
      <Input {...props} name="description" label="What it is for (optional)" required={false} maxlength={500} hint="Shown to the customer on the page and in the receipt." />
      <Input {...props} name="clientReferenceId" label="Your reference" hint="Unique per page; filled in for you. Sending this form twice never makes two pages." />
    </CreateForm>
  );
}
