import { wrongParameter } from './errors.ts';

/** Rules shared by the hosted-page resources (payout pages, payment pages). */

export const maxMetadataEntries = 20;

/** A metadata key, as the schemas declare it (`propertyNames`), worded as `validateMetadata` words it. */
export const metadataKey = { minLength: 1, maxLength: 40, 'x-rule': 'keys must be 1-40 characters' };

/** An absolute http(s) URL without credentials, or null when absent. */
export function validateReturnUrl(field: string, value: string | undefined): string | null {
  if (value === undefined) {
    return null;
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw wrongParameter(field, 'must be an absolute http or https URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw wrongParameter(field, 'must be an absolute http or https URL');
  }
  if (url.username !== '' || url.password !== '') {
    throw wrongParameter(field, 'must not contain credentials');
  }
  return url.toString();
}

/** The return URLs a page answers with: each one the page has (the answer leaves out the others). */
export function returnUrlsOf(page: { successReturnUrl: string | null; failureReturnUrl: string | null }): { successReturnUrl?: string; failureReturnUrl?: string } {
  return { ...(page.successReturnUrl ? { successReturnUrl: page.successReturnUrl } : {}), ...(page.failureReturnUrl ? { failureReturnUrl: page.failureReturnUrl } : {}) };
}

/** At most 20 string pairs; keys 1-40 characters, values up to 500. */
export function validateMetadata(metadata: Record<string, string> | undefined): Record<string, string> {
  if (metadata === undefined) {
    return {};
  }
  const entries = Object.entries(metadata);
  if (entries.length > maxMetadataEntries) {
    throw wrongParameter('metadata', `must have at most ${maxMetadataEntries} entries`);
  }
  for (const [key, value] of entries) {
    if (key.length < 1 || key.length > 40) {
      throw wrongParameter('metadata', 'keys must be 1-40 characters');
    }
    if (typeof value !== 'string' || value.length > 500) {
      throw wrongParameter(`metadata.${key}`, 'must be a string of at most 500 characters');
    }
  }
  return Object.fromEntries(entries);
}
