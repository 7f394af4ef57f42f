import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestContext, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { advanceAndDrain, createPage, getPage, walletMethod } from '../../helpers/payout-pages.ts';
import { signedInClient } from '../dashboard/client.ts';
import { sandboxTransactionHash } from '../../../src/modules/payout-pages/rails/explorer.ts';
import { customers, payoutAttempts } from '../../../src/db/schema/index.ts';
import { eq } from 'drizzle-orm';

const solanaWallet = { type: 'CRYPTO_WALLET', network: 'SOLANA', address: '7EYnhQoR9YM3N7UoaKRoA44Uy8JeaZV3qyouov87awMs' } as const;

describe('sandbox USDC payouts show a transaction hash like live ones (deterministic; on no chain, so linked to no explorer)', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  before(async () => {
    context = await createTestContext();
    merchant = await context.createMerchant();
  });
  after(async () => context.close());
  const approve = (customerId: string) => context.database.db.update(customers).set({ kycStatus: 'APPROVED' }).where(eq(customers.id, customerId));

  for (const [method, shape] of [
    [walletMethod, /^0x[0-9a-f]{64}$/],
    [solanaWallet, /^[1-9A-HJ-NP-Za-km-z]{80,90}$/],
  ] as const) {
    test(`${method.network}: payoutDetails once paid; the hosted page and the dashboard show the hash and link no explorer`, async () => {
      const page = await createPage(context, merchant, { fundingCurrency: 'USDC', amount: 1_500 });
      await approve(page.customer.id);
      await context.platform.services.payoutPages.confirm(page.id, method);
      await advanceAndDrain(context, 2_500);
      await advanceAndDrain(context, 2_500);
      const paid = await getPage(context, merchant, page.id);
      assert.equal(paid.status, 'PROCESSED');
      const [attempt] = await context.database.db.select().from(payoutAttempts).where(eq(payoutAttempts.payoutPageId, page.id));
      assert.ok(attempt);
      const details = paid.payoutDetails as { transactionHash: string; explorerUrl?: string };
      assert.equal(details.transactionHash, sandboxTransactionHash(method.network, attempt.id), 'deterministic: derived from our attempt id');
      assert.match(details.transactionHash, shape);
      assert.equal(details.explorerUrl, undefined, "the sandbox rail's hash is on no chain: no explorer link");
      assert.equal(attempt.transactionHash, details.transactionHash);
      const explorers = /href="https:\/\/[^"]*(etherscan|polygonscan|basescan|solscan)/;
      const hosted = await context.app.inject({ method: 'GET', url: `/payout-page/${page.id}` });
      assert.ok(hosted.body.includes(`<p class="mono" id="transaction-hash" aria-labelledby="transaction-label">${details.transactionHash}</p>`), 'the hash, monospace');
      assert.ok(hosted.body.includes('data-copy="transaction-hash"'), 'with a Copy button (shown by the script)');
      assert.ok(hosted.body.includes('sandbox: on no chain, so no explorer shows it'));
      assert.doesNotMatch(hosted.body, explorers, 'the hosted page links no real explorer');
      const client = await signedInClient(context, merchant);
      const screen = await client.get(`/dashboard/sandbox/payout-pages/${page.id}`);
      assert.equal(screen.statusCode, 200);
      assert.ok(screen.body.includes('Payout attempts'));
      assert.ok(screen.body.includes(details.transactionHash));
      assert.doesNotMatch(screen.body, explorers, 'the dashboard links no real explorer either');
    });
  }

  test('bank payouts carry no payoutDetails', async () => {
    const page = await createPage(context, merchant, { fundingCurrency: 'USD', amount: 1_000 });
    await approve(page.customer.id);
    await context.platform.services.payoutPages.confirm(page.id, { type: 'BANK_TRANSFER', accountHolderName: 'Ada Lovelace', routingNumber: '021000021', accountNumber: '000123456789', accountType: 'CHECKING' });
    await advanceAndDrain(context, 2_500);
    await advanceAndDrain(context, 2_500);
    const paid = await getPage(context, merchant, page.id);
    assert.equal(paid.status, 'PROCESSED');
    assert.equal(paid.payoutDetails, undefined);
  });
});
