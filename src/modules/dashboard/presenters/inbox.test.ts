import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pageCreatedEmail, verificationCodeEmail } from '../../payout-pages/index.ts';
import { verificationCodeOf } from './inbox.ts';

test('the inbox finds the code of a payout page verification e-mail, even with digits in the merchant name', () => {
  const email = verificationCodeEmail({ merchantName: 'Shop 555555', firstName: 'Ada', code: '042917', minutes: 10 });
  assert.equal(verificationCodeOf(email.template, email.text), '042917');
});

test('other e-mails carry no code', () => {
  const email = pageCreatedEmail({
    merchantName: 'Acme 123456',
    firstName: null,
    amount: 123_456,
    currency: 'USDC',
    url: 'https://paysail.test/payout-page/payout_page_x',
    expiresAt: new Date('2030-01-01T00:00:00Z'),
    subStatus: 'AWAITING_CUSTOMER',
  });
  assert.equal(verificationCodeOf(email.template, email.text), null);
});
