// The package's core (`index.js`): its main entry registers about 80 languages' names, all parsed at
// every start (0.1–0.3 s); the form needs English only.
import countries from 'i18n-iso-countries/index.js';
import english from 'i18n-iso-countries/langs/en.json' with { type: 'json' };
import { isCountryCode, isUsStateCode } from '../../../modules/customers/index.ts';

/**
 * The options of the KYC form's country and US-state selects. They offer exactly what the server
 * accepts (`validateAddress`), which still checks every posted code: a crafted post gets the same
 * per-field problem as the API.
 */

countries.registerLocale(english);

export interface SelectOption {
  value: string;
  label: string;
}

const collator = new Intl.Collator('en', { sensitivity: 'base' });

/** Every ISO 3166-1 country the server accepts, by its English name, sorted as people read them. */
export const countryOptions: readonly SelectOption[] = Object.entries(countries.getNames('en', { select: 'official' }))
  .filter(([code]) => isCountryCode(code))
  .map(([code, name]) => ({ value: code, label: name }))
  .sort((a, b) => collator.compare(a.label, b.label));

/**
 * The 50 states, DC and the five inhabited territories with USPS codes (a home address for identity
 * checks; the military "states" AA/AE/AP are mail routing codes and stay API-only).
 */
const usStateNames: Record<string, string> = {
  AL: 'Alabama', AK: 'Alaska', AZ: 'Arizona', AR: 'Arkansas', CA: 'California', CO: 'Colorado', CT: 'Connecticut', DE: 'Delaware', DC: 'District of Columbia',
  FL: 'Florida', GA: 'Georgia', HI: 'Hawaii', ID: 'Idaho', IL: 'Illinois', IN: 'Indiana', IA: 'Iowa', KS: 'Kansas', KY: 'Kentucky', LA: 'Louisiana', ME: 'Maine',
  MD: 'Maryland', MA: 'Massachusetts', MI: 'Michigan', MN: 'Minnesota', MS: 'Mississippi', MO: 'Missouri', MT: 'Montana', NE: 'Nebraska', NV: 'Nevada',
  NH: 'New Hampshire', NJ: 'New Jersey', NM: 'New Mexico', NY: 'New York', NC: 'North Carolina', ND: 'North Dakota', OH: 'Ohio', OK: 'Oklahoma', OR: 'Oregon',
  PA: 'Pennsylvania', RI: 'Rhode Island', SC: 'South Carolina', SD: 'South Dakota', TN: 'Tennessee', TX: 'Texas', UT: 'Utah', VT: 'Vermont', VA: 'Virginia',
  WA: 'Washington', WV: 'West Virginia', WI: 'Wisconsin', WY: 'Wyoming',
  AS: 'American Samoa', GU: 'Guam', MP: 'Northern Mariana Islands', PR: 'Puerto Rico', VI: 'U.S. Virgin Islands',
};

export const usStateOptions: readonly SelectOption[] = Object.entries(usStateNames)
  .filter(([code]) => isUsStateCode(code))
  .map(([code, name]) => ({ value: code, label: name }))
  .sort((a, b) => collator.compare(a.label, b.label));
