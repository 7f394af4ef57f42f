import type { KeyRing } from '../../crypto/keyring.ts';
import { fieldsToJwe, openRecord } from '../../crypto/pii.ts';
import type { MerchantsService, PiiKey } from '../merchants/index.ts';
import type { CustomerRow } from './insert.ts';
import { fieldsToAddress, location } from './identity.ts';
import type { CustomerOrErasedResponse, CustomerResponse } from './schemas.ts';

/**
 * A customer as the API answers it: identity fields as fresh JWEs under the merchant's active PII
 * key, the e-mail in plaintext; an erased customer as its tombstone.
 */
export function createCustomerResponses(deps: { keyRing: KeyRing; merchants: Pick<MerchantsService, 'activePiiKey'> }) {
  const { keyRing, merchants } = deps;

  /** The answer for a row whose PII is `jwe` (JWE per field) and `email` (plaintext). */
  function responseOf(row: CustomerRow, email: string | undefined, jwe: Record<string, string>): CustomerResponse {
    const response: CustomerResponse = {
      id: row.id,
      referenceId: row.referenceId,
      signupAt: row.signupAt.getTime(),
      merchantId: row.merchantId,
      livemode: row.livemode,
      kycStatus: row.kycStatus,
      ...(row.kycReason && (row.kycStatus === 'PENDING' || row.kycStatus === 'REJECTED') ? { kycReason: row.kycReason } : {}),
      createdAt: row.createdAt.getTime(),
      updatedAt: row.updatedAt.getTime(),
    };
    if (email !== undefined) {
      response.email = email;
    }
    if (row.supportedPaymentMethods) {
      response.supportedPaymentMethods = row.supportedPaymentMethods;
    }
    if (row.supportedPayoutMethods) {
      response.supportedPayoutMethods = row.supportedPayoutMethods as CustomerResponse['supportedPayoutMethods'];
    }
    for (const name of ['firstName', 'middleName', 'lastName', 'dateOfBirth', 'phoneNumber'] as const) {
      if (jwe[name] !== undefined) {
        response[name] = jwe[name];
      }
    }
    const address = fieldsToAddress(jwe);
    if (Object.keys(address).length > 0) {
      response.address = address;
    }
    return response;
  }

  /** The answer right after a write, from the plaintext just sealed (no decryption round trip). */
  function responseFromPlaintext(row: CustomerRow, fields: Record<string, string>, piiKey: PiiKey): CustomerResponse {
    const { email, ...identity } = fields;
    return responseOf(row, email, fieldsToJwe(identity, piiKey));
  }

  /** The answer for a stored row: every PII field decrypted and re-encrypted as a fresh JWE; an erased customer's tombstone. */
  async function toResponse(row: CustomerRow): Promise<CustomerOrErasedResponse> {
    if (row.erasedAt) {
      return { id: row.id, referenceId: row.referenceId, merchantId: row.merchantId, livemode: row.livemode, erasedAt: row.erasedAt.getTime(), createdAt: row.createdAt.getTime() };
    }
    const plain = openRecord(keyRing, location(row), row.pii);
    return responseFromPlaintext(row, plain, await merchants.activePiiKey(row.merchantId));
  }

  return { responseFromPlaintext, toResponse };
}
