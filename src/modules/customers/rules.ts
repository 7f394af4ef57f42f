import { createRequire } from 'node:module';
import type * as PhoneNumbers from 'libphonenumber-js/max';
import { wrongParameter } from '../../http/errors.ts';

/** ISO 3166-1 alpha-2 codes (officially assigned). */
const countryCodes = new Set(
  (
    'AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ ' +
    'CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR ' +
    'GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO ' +
    'JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR ' +
    'MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO ' +
    'RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV ' +
    'TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW'
  ).split(' '),
);

/** USPS state and territory codes, including DC and the military "states". */
const usStates = new Set(
  (
    'AL AK AZ AR CA CO CT DE DC FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY NC ND OH OK OR ' +
    'PA RI SC SD TN TX UT VT VA WA WV WI WY AS GU MP PR VI UM AA AE AP'
  ).split(' '),
);

/** Whether the server accepts `code` as `address.country` (the hosted form offers exactly these). */
export function isCountryCode(code: string): boolean {
  return countryCodes.has(code);
}

/** Whether the server accepts `code` as `address.state` of a US address. */
export function isUsStateCode(code: string): boolean {
  return usStates.has(code);
}

export const paymentMethods = ['CARD', 'BANK_TRANSFER', 'CRYPTO'] as const;
export const payoutMethods = ['BANK_TRANSFER', 'CRYPTO_WALLET'] as const;

export const addressFields = ['line1', 'line2', 'city', 'state', 'postalCode', 'country'] as const;
export type AddressField = (typeof addressFields)[number];
export type Address = Partial<Record<AddressField, string>>;

export const personFields = ['firstName', 'middleName', 'lastName', 'dateOfBirth', 'phoneNumber'] as const;
export type PersonField = (typeof personFields)[number];

/** The identity data of a customer, flattened: `firstName`, …, `address.city`. */
export type KycData = Partial<Record<PersonField | `address.${AddressField}`, string>>;

const emailPattern = /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;

export function isEmailAddress(value: string): boolean {
  return emailPattern.test(value);
}

export function normalizeEmail(field: string, value: string): string {
  const trimmed = value.trim();
  if (trimmed.length > 254 || !emailPattern.test(trimmed)) {
    throw wrongParameter(field, 'must be a valid e-mail address of at most 254 characters');
  }
  return trimmed;
}

let loadedPhoneNumbers: typeof PhoneNumbers | undefined;

/** libphonenumber with its full metadata: loaded with the first phone number, not at start (0.1 s). */
function phoneNumbers(): typeof PhoneNumbers {
  loadedPhoneNumbers ??= createRequire(import.meta.url)('libphonenumber-js/max') as typeof PhoneNumbers;
  return loadedPhoneNumbers;
}

/** E.164 or US national forms ((415) 555-0123, 415-555-0123, 4155550123, +1 415 555 0123) → E.164. */
export function normalizePhoneNumber(field: string, value: string): string {
  if (value.length > 20) {
    throw wrongParameter(field, 'must be at most 20 characters');
  }
  // Digits and the usual separators only: libphonenumber would otherwise read past trailing letters
  // or an extension ("x5") and drop them without a word.
  const parsed = /^\+?[0-9(][0-9()\-. ]*$/.test(value) ? phoneNumbers().parsePhoneNumberFromString(value, 'US') : undefined;
  if (!parsed || !parsed.isValid() || parsed.ext !== undefined) {
    throw wrongParameter(field, 'must be a valid phone number in E.164 (+14155550123) or US national form ((415) 555-0123)');
  }
  return parsed.number;
}

/** `YYYY-MM-DD`, a real calendar date in the past, at most 130 years ago. */
export function validateDateOfBirth(field: string, value: string, now: Date): string {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!match) {
    throw wrongParameter(field, 'must be a date in the form YYYY-MM-DD');
  }
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) {
    throw wrongParameter(field, 'must be a real calendar date');
  }
  if (date.getTime() >= now.getTime()) {
    throw wrongParameter(field, 'must be in the past');
  }
  const oldest = new Date(Date.UTC(now.getUTCFullYear() - 130, now.getUTCMonth(), now.getUTCDate()));
  if (date.getTime() < oldest.getTime()) {
    throw wrongParameter(field, 'must be at most 130 years ago');
  }
  return value;
}

export function validateSignupAt(field: string, value: number, now: Date): Date {
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw wrongParameter(field, 'must be a positive integer (epoch milliseconds)');
  }
  if (value > now.getTime() + 24 * 60 * 60 * 1000) {
    throw wrongParameter(field, 'must not be later than 24 hours from now');
  }
  return new Date(value);
}

/** Validates a whole address (after an update merged it): ISO country, US state and ZIP. */
export function validateAddress(address: Address): Address {
  const result: Address = { ...address };
  if (result.country !== undefined) {
    const country = result.country.toUpperCase();
    if (!countryCodes.has(country)) {
      throw wrongParameter('address.country', 'must be an ISO 3166-1 alpha-2 country code (for example US)');
    }
    result.country = country;
  }
  if (result.country === 'US') {
    if (result.state !== undefined) {
      const state = result.state.toUpperCase();
      if (!usStates.has(state)) {
        throw wrongParameter('address.state', 'must be a USPS state code (for example CA) when address.country is US');
      }
      result.state = state;
    }
    if (result.postalCode !== undefined && !/^\d{5}(-\d{4})?$/.test(result.postalCode)) {
      throw wrongParameter('address.postalCode', 'must be a ZIP (12345) or ZIP+4 (12345-6789) code when address.country is US');
    }
  }
  return result;
}

export function validatePaymentMethods(field: string, values: readonly string[]): string[] {
  const seen = new Set<string>();
  for (const value of values) {
    if (!(paymentMethods as readonly string[]).includes(value)) {
      throw wrongParameter(field, `must contain only ${paymentMethods.join(', ')}`);
    }
    if (seen.has(value)) {
      throw wrongParameter(field, 'must not contain duplicates');
    }
    seen.add(value);
  }
  return [...values];
}

export function sameMethods(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && [...a].sort().join(',') === [...b].sort().join(',');
}

/** The fields KYC needs (docs/API.md §6): state only when the country is US. */
export function missingKycFields(data: KycData): string[] {
  const required: Array<keyof KycData> = ['firstName', 'lastName', 'dateOfBirth', 'phoneNumber', 'address.line1', 'address.city', 'address.postalCode', 'address.country'];
  if (data['address.country'] === 'US') {
    required.push('address.state');
  }
  return required.filter((field) => !data[field]);
}
