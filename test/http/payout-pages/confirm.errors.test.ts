import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { bankMethod, closePayoutPageSuite, confirmPage, createPage, getPage, openPayoutPageCreateSuite, walletMethod } from '../../helpers/payout-pages.ts';

describe('POST /v1/test_helpers/payout_pages/:id/confirm: validation', () => {
  let context: TestContext;
  let merchant: TestMerchant;

  before(async () => ({ context, merchant } = await openPayoutPageCreateSuite()));
  after(async () => closePayoutPageSuite(context));

  test('the confirm helper validates the destination and the KYC fields, naming them', async () => {
    const page = await createPage(context, merchant);
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ payoutMethod: { ...bankMethod, routingNumber: '021000022' } }, /^payoutMethod.routingNumber must be a valid 9-digit ABA routing number/],
      [{ payoutMethod: { ...bankMethod, accountNumber: '12' } }, /^payoutMethod.accountNumber must be 4 to 17 digits/],
      [{ payoutMethod: { ...walletMethod, address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD' } }, /^payoutMethod.address must be a ETHEREUM address/],
      [{ payoutMethod: { type: 'CRYPTO_WALLET', network: 'SOLANA', address: 'not base58 0OIl' } }, /^payoutMethod.address must be a Solana address/],
      [{ payoutMethod: { type: 'CHEQUE' } }, /^payoutMethod.type must be one of BANK_TRANSFER, CRYPTO_WALLET/],
      [{ payoutMethod: { ...walletMethod, network: 'BITCOIN' } }, /^payoutMethod.network must be one of/],
      [{ payoutMethod: bankMethod, kyc: { dateOfBirth: '1990-02-30' } }, /^kyc.dateOfBirth must be a real calendar date/],
      [{ payoutMethod: bankMethod, kyc: { firstName: 'Ada' } }, /^kyc.lastName is required to verify the identity/],
    ];
    for (const [body, message] of cases) {
      const response = await confirmPage(context, merchant, page.id, body);
      assert.equal(response.statusCode, 400, `${JSON.stringify(body)}: ${response.body}`);
      assert.match(String(json(response).errorMessage), message);
    }
    assert.equal((await getPage(context, merchant, page.id)).status, 'CREATED', 'a refused confirmation changes nothing');
  });
});
