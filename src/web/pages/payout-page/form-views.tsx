import type { CryptoNetwork, PayoutMethodType } from '../../../modules/payout-pages/index.ts';
import { Csrf, DeclineLink, ErrorSummary, Field, Shell, methodLabels, networkLabels, type FieldErrors, type PageSummary } from './components.tsx';

/** Verified, CREATED: which method. A GET form, so it works without JavaScript and without state. */
export function MethodPage(props: { nonce: string; summary: PageSummary; greetingName: string | null; methods: PayoutMethodType[] }) {
  const { summary } = props;
  return (
    <Shell nonce={props.nonce} title="Choose how to get paid" summary={summary}>
      <h1>{props.greetingName ? `Hi ${props.greetingName}, how would you like to get paid?` : 'How would you like to get paid?'}</h1>
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
      <DeclineLink id={summary.id} />
    </Shell>
  );
}

export const bankLabels: Record<string, string> = {
  accountHolderName: 'Account holder name',
  routingNumber: 'Routing number',
  accountNumber: 'Account number',
  accountType: 'Account type',
};

export const cryptoLabels: Record<string, string> = { network: 'Network', address: 'Wallet address' };

export type DestinationValues = Record<string, string>;

/** The destination form of the chosen method; posts to the review step. */
export function DestinationPage(props: {
  nonce: string;
  summary: PageSummary;
  csrfToken: string;
  method: PayoutMethodType;
  values: DestinationValues;
  errors: FieldErrors;
  canChangeMethod: boolean;
}) {
  const { summary, values, errors } = props;
  const isBank = props.method === 'BANK_TRANSFER';
  return (
    <Shell nonce={props.nonce} title={isBank ? 'Bank account details' : 'Wallet details'} summary={summary}>
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
            <Field name="accountNumber" label="Account number" value={values.accountNumber} errors={errors} inputmode="numeric" maxlength={20} required hint="4 to 17 digits." />
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
      <DeclineLink id={summary.id} />
    </Shell>
  );
}

/** The last look before confirming; the values travel in hidden fields (nothing is stored before confirmation). */
export function ReviewPage(props: { nonce: string; summary: PageSummary; csrfToken: string; method: PayoutMethodType; values: DestinationValues; display: Array<[string, string]> }) {
  const { summary } = props;
  return (
    <Shell nonce={props.nonce} title="Review your payout" summary={summary}>
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
        {Object.entries(props.values).map(([name, value]) => (
          <input type="hidden" name={name} value={value} />
        ))}
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
  return (
    <Shell nonce={props.nonce} title="Verify your identity" summary={summary}>
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
          <Field name="address.line1" label={kycLabels['address.line1'] ?? ''} errors={errors} autocomplete="address-line1" required maxlength={255} {...fieldProps('address.line1')} />
          <Field name="address.line2" label={`${kycLabels['address.line2'] ?? ''} (optional)`} errors={errors} autocomplete="address-line2" maxlength={255} {...fieldProps('address.line2')} />
          <Field name="address.city" label={kycLabels['address.city'] ?? ''} errors={errors} autocomplete="address-level2" required maxlength={255} {...fieldProps('address.city')} />
          <div class="row">
            <Field name="address.state" label={kycLabels['address.state'] ?? ''} errors={errors} autocomplete="address-level1" maxlength={255} {...fieldProps('address.state')} hint="Required in the US (two letters, e.g. CA)." />
            <Field name="address.postalCode" label={kycLabels['address.postalCode'] ?? ''} errors={errors} autocomplete="postal-code" required maxlength={255} {...fieldProps('address.postalCode')} />
          </div>
          <Field
            name="address.country"
            label={kycLabels['address.country'] ?? ''}
            errors={errors}
            autocomplete="country"
            required
            maxlength={2}
            {...fieldProps('address.country')}
            hint="Two-letter country code, e.g. US."
          />
        </fieldset>
        <button type="submit">Submit for verification</button>
      </form>
      <DeclineLink id={summary.id} />
    </Shell>
  );
}
