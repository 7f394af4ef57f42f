/**
 * The card networks' own fraud type codes, as issuers report them (docs/guides/fraud-reports.md):
 * Visa TC40 fraud types and Mastercard SAFE fraud type codes. The description becomes the report's
 * `fraudReason`; the code is kept as `fraudType`.
 */
export const fraudNetworks = ['visa', 'mastercard'] as const;
export type FraudNetwork = (typeof fraudNetworks)[number];

export const visaFraudTypes: Readonly<Record<string, string>> = {
  '0': 'Lost card',
  '1': 'Stolen card',
  '2': 'Card not received as issued',
  '3': 'Fraudulent application',
  '4': 'Issuer-reported counterfeit',
  '5': 'Miscellaneous',
  '6': 'Fraudulent use of account number (card not present)',
  '9': 'Acquirer-reported counterfeit',
  A: 'Incorrect processing',
  B: 'Account or credentials takeover',
  C: 'Merchant misrepresentation',
  D: 'Manipulation of account holder',
};

export const mastercardFraudTypes: Readonly<Record<string, string>> = {
  '00': 'Lost fraud',
  '01': 'Stolen fraud',
  '02': 'Never received issue',
  '03': 'Fraudulent application',
  '04': 'Counterfeit card fraud',
  '05': 'Account takeover fraud',
  '06': 'Card not present fraud',
  '07': 'Multiple imprint fraud',
  '51': 'Bust-out collusive merchant',
  '55': 'Modification of payment order',
  '56': 'Manipulation of cardholder',
  '57': 'Merchant misrepresentation',
};

/** The scheme name payments carry for each network. */
export const networkScheme: Readonly<Record<FraudNetwork, 'VISA' | 'MASTERCARD'>> = { visa: 'VISA', mastercard: 'MASTERCARD' };

/** Normalises a code as written in a file (`a` → `A`; Mastercard `6` → `06`); null when unknown. */
export function normalizeFraudType(network: FraudNetwork, raw: string): string | null {
  const value = raw.trim().toUpperCase();
  if (network === 'visa') {
    return value in visaFraudTypes ? value : null;
  }
  const padded = /^\d$/.test(value) ? `0${value}` : value;
  return padded in mastercardFraudTypes ? padded : null;
}

/** `fraudReason` for a network code (the sandbox network's signals use the same table). */
export function fraudReasonFor(scheme: string, fraudType: string): string {
  const table = scheme === 'MASTERCARD' ? mastercardFraudTypes : visaFraudTypes;
  return table[fraudType] ?? `Fraud type ${fraudType}`;
}
