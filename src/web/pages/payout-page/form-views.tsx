import type { CryptoNetwork, PayoutMethodType } from '../../../modules/payout-pages/index.ts';
import { Csrf, DeclineLink, ErrorSummary, Field, SelectField, Shell, methodLabels, networkLabels, type FieldErrors, type PageSummary } from './components.tsx';
import { countryOptions, usStateOptions } from './address-options.ts';

/** Verified, CREATED: which method. A GET form, so it works without JavaScript and without state. */
/** `retrying`: other details after a rejected or returned payout (no decline then: the page is FAILED, past declining). */
export function MethodPage(props: { nonce: string; summary: PageSummary; greetingName: string | null; methods: PayoutMethodType[]; retrying?: boolean }) {
  const { summary } = props;
  return (
    <Shell nonce={props.nonce} title="Choose how to get paid" summary={summary} step="method">
      {props.retrying ? (
        <>
          <h1>Where should we send it instead?</h1>
          <p class="notice">The last payout could not be delivered. Choose how to get paid, then enter the new details: the payout is sent again, once.</p>
        </>
      ) : (
        <h1>{props.greetingName ? `Hi ${props.greetingName}, how would you like to get paid?` : 'How would you like to get paid?'}</h1>
      )}
      <form method="get" action={`/payout-page/${summary.id}`}>
        <fieldset>
          <legend>Payout method</legend>
          {props.methods.map((method, index) => (
            <label class="choice" for={`method-${method}`}>
              <input type="radio" id={`method-${method}`} name="method" value={method} {...(index === 0 ? { checked: true } : {})} required />
              {methodLabels[method]}
            </label>
          ))}
        </fieldset>
        <button type="submit">Continue</button>
      </form>
      {props.retrying ? null : <DeclineLink id={summary.id} />}
    </Shell>
  );
}

export const bankLabels: Record<string, string> = {
  accountHolderName: 'Account holder name',
  routingNumber: 'Routing number',
  accountNumber: 'Account number',
  accountNumberConfirmation: 'Confirm account number',
  accountType: 'Account type',
};

export const cryptoLabels: Record<string, string> = { network: 'Network', address: 'Wallet address' };

export type DestinationValues = Record<string, string>;

/**
 * The destination form of the chosen method; posts to the review step. The account number is
 * entered twice and never written back into the page (like a card number): after a problem both
 * entries are empty again.
 */
export function DestinationPage(props: {
  nonce: string;
  summary: PageSummary;
  csrfToken: string;
  method: PayoutMethodType;
  values: DestinationValues;
  errors: FieldErrors;
  canChangeMethod: boolean;
  retrying?: boolean;
}) {
  const { summary, values, errors } = props;
  const isBank = props.method === 'BANK_TRANSFER';
  return (
    <Shell nonce={props.nonce} title={isBank ? 'Bank account details' : 'Wallet details'} summary={summary} step="details">
      <h1>{isBank ? 'Where should we send the money?' : 'Which wallet should receive the USDC?'}</h1>
      <ErrorSummary errors={errors} labels={isBank ? bankLabels : cryptoLabels} />
      <form method="post" action={`/payout-page/${summary.id}/review`} novalidate>
        <Csrf token={props.csrfToken} />
        <input type="hidden" name="type" value={props.method} />
        {isBank ? (
          <>
            <Field name="accountHolderName" label="Account holder name" value={values.accountHolderName} errors={errors} autocomplete="name" required maxlength={100} />
            <Field
              name="routingNumber"
              label="Routing number"
              value={values.routingNumber}
              errors={errors}
              inputmode="numeric"
              maxlength={11}
              required
              hint="The 9-digit ABA number at the bottom left of a check."
            />
            <Field name="accountNumber" label="Account number" value="" errors={errors} inputmode="numeric" maxlength={20} required hint="4 to 17 digits." />
            <Field name="accountNumberConfirmation" label="Confirm account number" value="" errors={errors} inputmode="numeric" maxlength={20} required liveError />
            <fieldset {...(errors.accountType ? { 'aria-invalid': 'true' } : {})}>
              <legend id="accountType">Account type</legend>
              {(['CHECKING', 'SAVINGS'] as const).map((type) => (
                <label class="choice" for={`accountType-${type}`}>
                  <input type="radio" id={`accountType-${type}`} name="accountType" value={type} {...((values.accountType ?? 'CHECKING') === type ? { checked: true } : {})} />
                  {type === 'CHECKING' ? 'Checking' : 'Savings'}
                </label>
              ))}
              {errors.accountType ? <p class="field-error">{errors.accountType}</p> : null}
            </fieldset>
          </>
        ) : (
          <>
            <label for="network">Network</label>
            <select id="network" name="network" required {...(errors.network ? { 'aria-invalid': 'true', 'aria-describedby': 'network-error' } : {})}>
              {(Object.keys(networkLabels) as CryptoNetwork[]).map((network) => (
                <option value={network} {...(values.network === network ? { selected: true } : {})}>
                  {networkLabels[network]}
                </option>
              ))}
            </select>
            {errors.network ? (
              <p class="field-error" id="network-error">
                {errors.network}
              </p>
            ) : null}
            <Field
              name="address"
              label="Wallet address"
              value={values.address}
              errors={errors}
              required
              maxlength={100}
              hint="Ethereum, Polygon and Base: 0x followed by 40 characters (checksummed addresses are checked). Solana: the base58 address."
            />
          </>
        )}
        <button type="submit">Review</button>
      </form>
      <p class="links">
        {props.canChangeMethod ? <a href={`/payout-page/${summary.id}`}>Choose another method</a> : null}
      </p>
      {props.retrying ? null : <DeclineLink id={summary.id} />}
    </Shell>
  );
}

/**
 * The last look before confirming. Nothing is stored before confirmation: the destination travels
 * to the confirm step sealed (encrypted and bound to this page, `sealed`), so the account number is
 * not in the page's HTML.
 */
export function ReviewPage(props: { nonce: string; summary: PageSummary; csrfToken: string; method: PayoutMethodType; sealed: string; display: Array<[string, string]> }) {
  const { summary } = props;
  return (
    <Shell nonce={props.nonce} title="Review your payout" summary={summary} step="review">
      <h1>Check the details</h1>
      <div class="card">
        <dl>
          <dt>Method</dt>
          <dd>{methodLabels[props.method]}</dd>
          {props.display.map(([term, value]) => (
            <>
              <dt>{term}</dt>
              <dd class="mono">{value}</dd>
            </>
          ))}
        </dl>
      </div>
      <p>Money sent to a wrong account or wallet may not be recoverable. By confirming you ask {summary.merchantName} to pay this amount to the destination above.</p>
      <form method="post" action={`/payout-page/${summary.id}/confirm`}>
        <Csrf token={props.csrfToken} />
        <input type="hidden" name="type" value={props.method} />
        <input type="hidden" name="sealed" value={props.sealed} />
        <button type="submit">Confirm payout</button>
      </form>
      <p class="links">
        <a href={`/payout-page/${summary.id}?method=${props.method}`}>Change the details</a>
      </p>
    </Shell>
  );
}

export const kycLabels: Record<string, string> = {
  firstName: 'First name',
  middleName: 'Middle name',
  lastName: 'Last name',
  dateOfBirth: 'Date of birth',
  phoneNumber: 'Phone number',
  'address.line1': 'Address line 1',
  'address.line2': 'Address line 2',
  'address.city': 'City',
  'address.state': 'State',
  'address.postalCode': 'ZIP / postal code',
  'address.country': 'Country',
};

/** The KYC form, pre-filled with what the merchant already sent (shown read-only: it is kept as is). */
export function KycPage(props: { nonce: string; summary: PageSummary; csrfToken: string; greetingName: string | null; known: Record<string, string>; values: Record<string, string>; errors: FieldErrors }) {
  const { summary, known, values, errors } = props;
  const fieldProps = (name: string) => {
    const knownValue = known[name];
    return knownValue !== undefined ? { value: knownValue, readonly: true, hint: 'Already on file.' } : { value: values[name] ?? '' };
  };
  /** Country and state: what the merchant sent shows read-only as the other fields do; otherwise a list to choose from. */
  const knownOrList = (name: string, list: { options: ReadonlyArray<{ value: string; label: string }>; placeholder: string; fallback: string; autocomplete: string; required: boolean; maxlength: number }) => {
    const label = kycLabels[name] ?? '';
    return known[name] !== undefined ? (
      <Field name={name} label={label} errors={errors} autocomplete={list.autocomplete} required={list.required} maxlength={list.maxlength} {...fieldProps(name)} />
    ) : (
      <SelectField name={name} label={label} value={values[name] ?? list.fallback} errors={errors} options={list.options} placeholder={list.placeholder} autocomplete={list.autocomplete} required={list.required} />
    );
  };
  const stateField = knownOrList('address.state', { options: usStateOptions, placeholder: 'Select a state (US only)', fallback: '', autocomplete: 'address-level1', required: false, maxlength: 255 });
  return (
    <Shell nonce={props.nonce} title="Verify your identity" summary={summary} step="identity">
      <h1>{props.greetingName ? `Thanks, ${props.greetingName}. One more step` : 'One more step'}</h1>
      <p>Before {summary.merchantName} can pay you, we need to verify your identity. Fields already on file are shown greyed out.</p>
      <ErrorSummary errors={errors} labels={kycLabels} />
      <form method="post" action={`/payout-page/${summary.id}/kyc`} novalidate>
        <Csrf token={props.csrfToken} />
        <fieldset>
          <legend>About you</legend>
          <Field name="firstName" label={kycLabels.firstName ?? ''} errors={errors} autocomplete="given-name" required maxlength={100} {...fieldProps('firstName')} />
          <Field name="middleName" label={`${kycLabels.middleName ?? ''} (optional)`} errors={errors} autocomplete="additional-name" maxlength={100} {...fieldProps('middleName')} />
          <Field name="lastName" label={kycLabels.lastName ?? ''} errors={errors} autocomplete="family-name" required maxlength={100} {...fieldProps('lastName')} />
          <Field name="dateOfBirth" label={kycLabels.dateOfBirth ?? ''} type="date" errors={errors} autocomplete="bday" required {...fieldProps('dateOfBirth')} />
          <Field name="phoneNumber" label={kycLabels.phoneNumber ?? ''} type="tel" errors={errors} autocomplete="tel" required maxlength={20} {...fieldProps('phoneNumber')} hint="For example +1 415 555 0123." />
        </fieldset>
        <fieldset>
          <legend>Home address</legend>
          {knownOrList('address.country', { options: countryOptions, placeholder: 'Select a country', fallback: 'US', autocomplete: 'country', required: true, maxlength: 2 })}
          <Field name="address.line1" label={kycLabels['address.line1'] ?? ''} errors={errors} autocomplete="address-line1" required maxlength={255} {...fieldProps('address.line1')} />
          <Field name="address.line2" label={`${kycLabels['address.line2'] ?? ''} (optional)`} errors={errors} autocomplete="address-line2" maxlength={255} {...fieldProps('address.line2')} />
          <Field name="address.city" label={kycLabels['address.city'] ?? ''} errors={errors} autocomplete="address-level2" required maxlength={255} {...fieldProps('address.city')} />
          <div class="row">
            {known['address.state'] !== undefined ? stateField : known['address.country'] !== undefined && known['address.country'] !== 'US' ? null : <div data-us-state="">{stateField}</div>}
            <Field name="address.postalCode" label={kycLabels['address.postalCode'] ?? ''} errors={errors} autocomplete="postal-code" required maxlength={255} {...fieldProps('address.postalCode')} />
          </div>
        </fieldset>
        <button type="submit">Submit for verification</button>
      </form>
      <DeclineLink id={summary.id} />
    </Shell>
  );
}
