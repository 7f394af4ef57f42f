import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { balanceOf } from '../../helpers/ledger.ts';
import { advanceAndDrain, attemptsOfPage, bankMethod, closePayoutPageSuite, confirmPage, createPage, errorCodeOf, fullKyc, getPage, openPayoutPageCreateSuite, otherBankMethod, pageAction, payoutEvents, rejectedBankMethod, retryPayout, walletMethod } from '../../helpers/payout-pages.ts';
import { payoutPages } from '../../../src/db/schema/index.ts';

describe('POST /v1/test_helpers/payout_pages/:id/confirm: validation, state, expiry, limits; retries refused', () => {
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

  test('a page past expiresAt cannot be confirmed even before the job ran', async () => {
    const page = await createPage(context, merchant, { expiresAt: context.clock.now().getTime() + 1_000 });
    context.clock.advance(1_000);
    const late = await confirmPage(context, merchant, page.id, { payoutMethod: bankMethod });
    assert.equal(late.statusCode, 409);
    assert.match(String(json(late).errorMessage), /expired/);
    await context.drainJobs();
    assert.equal((await getPage(context, merchant, page.id)).status, 'EXPIRED');
  });

  test('INVALID_STATE for every action the state does not allow', async () => {
    // release of an AUTOMATIC page, cancel while PROCESSING and after PROCESSED, decline while PROCESSING
    const page = await createPage(context, merchant, { releaseMethod: 'AUTOMATIC' });
    const autoRelease = await pageAction(context, merchant, page.id, 'release');
    assert.equal(autoRelease.statusCode, 409);
    assert.match(String(json(autoRelease).errorMessage), /AUTOMATIC/);
    await confirmPage(context, merchant, page.id, { payoutMethod: walletMethod, kyc: fullKyc });
    await advanceAndDrain(context);
    assert.equal((await getPage(context, merchant, page.id)).status, 'PROCESSING');
    for (const response of [
      await pageAction(context, merchant, page.id, 'cancel'),
      await pageAction(context, merchant, page.id, 'release'),
      await context.request({ method: 'POST', url: `/v1/test_helpers/payout_pages/${page.id}/decline?livemode=false`, apiKey: merchant.apiKey }),
      await confirmPage(context, merchant, page.id, { payoutMethod: walletMethod }),
    ]) {
      assert.equal(response.statusCode, 409, response.body);
      assert.equal(errorCodeOf(response), 'INVALID_STATE');
    }
    await advanceAndDrain(context);
    assert.equal((await getPage(context, merchant, page.id)).status, 'PROCESSED');
    const late = await pageAction(context, merchant, page.id, 'cancel');
    assert.equal(errorCodeOf(late), 'INVALID_STATE');
    // The failed attempts changed nothing: five changes, five events.
    assert.equal((await payoutEvents(context, page.id)).length, 5);
  });

  test('supportedPayoutMethods limits the choice', async () => {
    const page = await createPage(context, merchant);
    const set = await context.admin('POST', `/admin/v1/customers/${page.customer.id}/supported_payout_methods`, { supportedPayoutMethods: ['CRYPTO_WALLET'] });
    assert.equal(set.statusCode, 200, set.body);
    const bank = await confirmPage(context, merchant, page.id, { payoutMethod: bankMethod });
    assert.equal(bank.statusCode, 400);
    assert.equal(json(bank).errorCode, 'WRONG_PARAMETER');
    assert.match(String(json(bank).errorMessage), /payoutMethod.type must be one of CRYPTO_WALLET/);
    assert.equal((await confirmPage(context, merchant, page.id, { payoutMethod: walletMethod })).statusCode, 200);
  });

  test('bad retry input → 400 WRONG_PARAMETER, nothing written; a retry the balance cannot cover → INSUFFICIENT_FUNDS, nothing written', async () => {
    const poor = await context.createMerchant();
    const page = await createPage(context, poor, { amount: 999_999_00 });
    await confirmPage(context, poor, page.id, { payoutMethod: rejectedBankMethod, kyc: fullKyc });
    await advanceAndDrain(context);
    await advanceAndDrain(context);
    assert.equal((await getPage(context, poor, page.id))['sub-status'], 'PAYOUT_REJECTED');
    const [stored] = await context.database.db.select().from(payoutPages).where(eq(payoutPages.id, page.id));
    for (const [field, payoutMethod] of [
      ['payoutMethod.routingNumber', { ...otherBankMethod, routingNumber: '021000022' }],
      ['payoutMethod.accountNumber', { ...otherBankMethod, accountNumber: '12' }],
    ] as const) {
      const response = await retryPayout(context, merchant, page.id, payoutMethod);
      assert.ok(!response.ok && response.code === 'WRONG_PARAMETER', JSON.stringify(response));
      assert.match(response.message, new RegExp(field.replace('payoutMethod.', '')));
    }
    // The merchant spends the balance meanwhile: the reservation cannot be made again.
    await createPage(context, poor, { amount: (await balanceOf(context.database, poor.id, false, 'USDC')).available });
    const short = await retryPayout(context, merchant, page.id, otherBankMethod);
    assert.ok(!short.ok && short.code === 'INSUFFICIENT_FUNDS', JSON.stringify(short));
    const [unchanged] = await context.database.db.select().from(payoutPages).where(eq(payoutPages.id, page.id));
    assert.deepEqual(unchanged, stored);
    assert.equal((await attemptsOfPage(context, page.id)).length, 1);
  });
});
