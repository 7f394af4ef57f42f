import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { createTestContext, type TestContext, type TestMerchant } from '../helpers/context.ts';
import { FormClient } from '../helpers/browser.ts';
import { createPage } from '../helpers/payout-pages.ts';
import { payoutPageSessions } from '../../src/db/schema/index.ts';
import { maxWrongCodes } from '../../src/modules/payout-pages/lock.ts';

/**
 * Attacks from the outside security test (issue 18), replayed as an attacker would run them, each
 * asserting the bound that stops it. Add an attack here when a finding is fixed.
 */
describe('attacks (issue 18)', () => {
  let context: TestContext;
  let merchant: TestMerchant;

  before(async () => {
    context = await createTestContext();
    merchant = await context.createMerchant({ name: 'Target Co' });
  });
  after(async () => context.close());

  test('payout-page code brute force: an attacker with the link, pacing under every rate limit for the page’s 30 days, gets 10 guesses in all', async () => {
    const page = await createPage(context, merchant, { expiresAt: context.clock.now().getTime() + 30 * 24 * 60 * 60_000 });
    const attacker = new FormClient(context.app);
    await attacker.get(`/payout-page/${page.id}`);
    const token = attacker.csrfToken();
    let evaluated = 0;
    let guess = 0;
    // Before the fix: 5 codes an hour × 5 guesses = 25 guesses an hour, 18,000 over the page's life.
    for (let hour = 0; hour < 12; hour += 1) {
      context.clock.advance(60 * 60_000);
      for (let code = 0; code < 5; code += 1) {
        context.clock.advance(31_000);
        await attacker.post(`/payout-page/${page.id}/code`, { _csrf: token }, { csrf: false });
        for (let attempt = 0; attempt < 5; attempt += 1) {
          guess += 1;
          const answer = await attacker.post(`/payout-page/${page.id}/verify`, { _csrf: token, code: String(guess).padStart(6, '0') }, { csrf: false });
          // A checked wrong guess answers 400 (the code form again); a locked page redirects to its locked screen.
          if (answer.statusCode === 400) {
            evaluated += 1;
          }
        }
      }
    }
    assert.equal(evaluated, maxWrongCodes - 1, 'the 10th wrong guess locks (and is answered with the locked screen)');
    assert.equal(attacker.cookie('ps_payout_session'), undefined);
    assert.equal((await context.database.db.select().from(payoutPageSessions).where(eq(payoutPageSessions.payoutPageId, page.id))).length, 0);
    assert.equal((await attacker.get(`/payout-page/${page.id}`)).statusCode, 403, 'locked');
  });
});
