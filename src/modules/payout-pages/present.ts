import type { KeyRing } from '../../crypto/keyring.ts';
import { openFields, sealFields } from '../../crypto/pii.ts';
import { returnUrlsOf } from '../../http/request-rules.ts';
import { explorerUrl } from './rails/explorer.ts';
import { destinationFields, destinationFromFields, type PayoutDestination } from './destinations.ts';
import type { PayoutPageRow } from './repository.ts';
import type { PayoutPageResponse } from './schemas.ts';
import type { PayoutPageState, PayoutPageStatus, PayoutPageSubStatus } from './states.ts';

export function location(page: { merchantId: string; id: string }) {
  return { merchantId: page.merchantId, table: 'payout_pages', rowId: page.id };
}

export function stateOf(page: PayoutPageRow): PayoutPageState {
  return { status: page.status as PayoutPageStatus, subStatus: page.subStatus as PayoutPageSubStatus };
}

/** How a page row is read: its sealed fields opened, and its API shape. */
export function createPayoutPresenter(deps: { keyRing: KeyRing; publicUrl: string }) {
  const { keyRing } = deps;

  function pageUrl(id: string): string {
    return `${deps.publicUrl}/payout-page/${id}`;
  }

  function emailOf(page: PayoutPageRow): string {
    if (page.customerEmailCiphertext === '') {
      return ''; // erased with its customer
    }
    return openFields(keyRing, location(page), { 'customer.email': page.customerEmailCiphertext })['customer.email'] ?? '';
  }

  /** Destination fields are sealed one by one, bound to this page (`destination.<field>`). */
  function sealDestination(page: { merchantId: string; id: string }, destination: PayoutDestination): Record<string, string> {
    const fields = Object.fromEntries(Object.entries(destinationFields(destination)).map(([field, value]) => [`destination.${field}`, value]));
    return sealFields(keyRing, location(page), fields);
  }

  function destinationOf(page: PayoutPageRow): PayoutDestination | null {
    if (!page.destination) {
      return null;
    }
    const fields = openFields(keyRing, location(page), page.destination);
    return destinationFromFields(Object.fromEntries(Object.entries(fields).map(([field, value]) => [field.replace(/^destination\./, ''), value])));
  }

  function toResponse(page: PayoutPageRow): PayoutPageResponse {
    const response: PayoutPageResponse = {
      id: page.id,
      status: page.status as PayoutPageStatus,
      'sub-status': page.subStatus as PayoutPageSubStatus,
      amount: page.amount,
      fundingCurrency: page.fundingCurrency,
      clientReferenceId: page.clientReferenceId,
      releaseMethod: page.releaseMethod,
      customer: { id: page.customerId, referenceId: page.customerReferenceId, email: emailOf(page) },
      merchant: { id: page.merchantId, livemode: page.livemode },
      url: pageUrl(page.id),
      metadata: page.metadata,
      expiresAt: page.expiresAt.getTime(),
      createdAt: page.createdAt.getTime(),
      updatedAt: page.updatedAt.getTime(),
    };
    if (page.statusReason) {
      response.statusReason = page.statusReason;
    }
    Object.assign(response, returnUrlsOf(page));
    if (page.customerConfirmedAt) {
      response.customerConfirmedAt = page.customerConfirmedAt.getTime();
    }
    if (page.lockedAt) {
      response.lockedAt = page.lockedAt.getTime();
    }
    if (page.payoutMethod?.type === 'BANK_TRANSFER') {
      const destination = destinationOf(page);
      response.payoutMethod = { type: 'BANK_TRANSFER', last4: page.payoutMethod.last4, routingNumber: destination?.type === 'BANK_TRANSFER' ? destination.routingNumber : '' };
    } else if (page.payoutMethod?.type === 'CRYPTO_WALLET') {
      response.payoutMethod = { type: 'CRYPTO_WALLET', network: page.payoutMethod.network, address: page.payoutMethod.address };
      if (page.transactionHash) {
        const explorer = explorerUrl(page.payoutMethod.network, page.transactionHash, page);
        response.payoutDetails = { transactionHash: page.transactionHash, ...(explorer ? { explorerUrl: explorer } : {}) };
      }
    }
    return response;
  }

  /**
   * The event body: the payout page as the API returns it plus the previous state — without the
   * customer's e-mail, which is PII (docs/API.md §6: no plaintext PII in webhook payloads or in the
   * database, where events are stored).
   */
  function eventData(page: PayoutPageRow, previous: PayoutPageState): Record<string, unknown> {
    const { customer, ...rest } = toResponse(page);
    return { ...rest, customer: { id: customer.id, referenceId: customer.referenceId }, previousStatus: previous.status, previousSubStatus: previous.subStatus };
  }

  return { pageUrl, emailOf, sealDestination, destinationOf, toResponse, eventData };
}

export type PayoutPresenter = ReturnType<typeof createPayoutPresenter>;
