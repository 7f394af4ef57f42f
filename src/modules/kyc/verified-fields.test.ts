import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { addressFields, personFields, type KycData } from '../customers/index.ts';
import { applicantFor } from './onfido/adapter.ts';
import { sandboxDataOutcome } from './providers/sandbox.ts';
import { verifiedIdentityFields } from './service.ts';

const complete: Required<KycData> = {
  firstName: 'Ada',
  middleName: 'King',
  lastName: 'Lovelace',
  dateOfBirth: '1990-12-10',
  phoneNumber: '+14155550123',
  'address.line1': '1 Market St',
  'address.line2': 'Suite 5',
  'address.city': 'San Francisco',
  'address.state': 'CA',
  'address.postalCode': '94105',
  'address.country': 'US',
};

const changed: Required<KycData> = {
  firstName: 'Grace',
  middleName: 'Brewster',
  lastName: 'Hopper',
  dateOfBirth: '1906-12-09',
  phoneNumber: '+14155550199',
  'address.line1': '9 Pier 39',
  'address.line2': 'Floor 2',
  'address.city': 'Oakland',
  'address.state': 'NY',
  'address.postalCode': '94607',
  'address.country': 'CA',
};

const everyField = [...personFields, ...addressFields.map((field) => `address.${field}` as const)];

/** Re-verification starts when a verified field changes: the list must be exactly what a provider is sent. */
describe('verifiedIdentityFields are the fields the provider receives', () => {
  for (const field of everyField) {
    const listed = verifiedIdentityFields.includes(field);
    test(`${field}: ${listed ? 'sent to Onfido, so listed' : 'not sent, so not listed'}`, () => {
      const sentBefore = applicantFor(complete);
      const sentAfter = applicantFor({ ...complete, [field]: changed[field] });
      assert.equal(JSON.stringify(sentBefore) !== JSON.stringify(sentAfter), listed, `changing ${field} ${listed ? 'must' : 'must not'} change what Onfido receives`);
    });
  }

  test('phoneNumber is not listed (it is never sent)', () => {
    assert.equal(verifiedIdentityFields.includes('phoneNumber'), false);
  });

  test('the sandbox rules look only at verified fields', () => {
    for (const field of everyField.filter((candidate) => !verifiedIdentityFields.includes(candidate))) {
      for (const value of ['Rejected', 'Review', 'Documents', '1901-01-01']) {
        assert.deepEqual(sandboxDataOutcome({ ...complete, [field]: value }), sandboxDataOutcome(complete), `${field}=${value} changes no sandbox outcome`);
      }
    }
  });
});
