import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestContext, json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { assertError, completeKyc, snapshotTable } from '../../helpers/assertions.ts';
import { testDatabaseKind } from '../../helpers/database.ts';

describe(`POST /v1/customers under concurrency (${testDatabaseKind})`, () => {
  let context: TestContext;
  let merchant: TestMerchant;

  before(async () => {
    context = await createTestContext();
    merchant = await context.createMerchant({ live: true });
  });
  after(async () => context.close());

  test('50 concurrent creates with one referenceId → exactly one 200, the rest 409 DUPLICATE_REFERENCE_ID', async () => {
    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, index) =>
        context.request({
          method: 'POST',
          url: '/v1/customers?livemode=false',
          apiKey: merchant.apiKey,
          body: { referenceId: 'contended', signupAt: 1_700_000_000_000 + index, email: `racer${index}@example.com` },
        }),
      ),
    );
    const statuses = responses.map((response) => response.statusCode);
    assert.equal(statuses.filter((status) => status === 200).length, 1, `statuses: ${statuses.join(',')}`);
    for (const response of responses.filter((candidate) => candidate.statusCode !== 200)) {
      assertError(response, 409, 'DUPLICATE_REFERENCE_ID', 'contended');
    }
    const rows = (await snapshotTable(context.database, 'customers')).map((row) => JSON.parse(row) as { reference_id: string; id: string });
    const contended = rows.filter((row) => row.reference_id === 'contended');
    assert.equal(contended.length, 1);
    const winner = responses.find((response) => response.statusCode === 200);
    assert.equal(contended[0]?.id, winner ? json<{ data: { id: string } }>(winner).data.id : undefined);
  });

  test('a race with complete KYC data starts exactly one verification and one KYC job (the losers write nothing)', async () => {
    const kycBody = { ...completeKyc, referenceId: 'contended-kyc', signupAt: 1_700_000_000_000 };
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => context.request({ method: 'POST', url: '/v1/customers?livemode=false', apiKey: merchant.apiKey, body: kycBody })),
    );
    const winners = responses.filter((response) => response.statusCode === 200);
    assert.equal(winners.length, 1, `statuses: ${responses.map((response) => response.statusCode).join(',')}`);
    const customerId = json<{ data: { id: string; kycStatus: string } }>(winners[0] as (typeof winners)[number]).data.id;
    assert.equal(json<{ data: { kycStatus: string } }>(winners[0] as (typeof winners)[number]).data.kycStatus, 'PENDING');
    const verifications = (await snapshotTable(context.database, 'kyc_verifications')).map((row) => JSON.parse(row) as { id: string; customer_id: string });
    const mine = verifications.filter((row) => row.customer_id === customerId);
    assert.equal(mine.length, 1, 'one verification for the winner');
    const jobs = (await snapshotTable(context.database, 'jobs')).map((row) => JSON.parse(row) as { queue: string; payload: { verificationId?: string } });
    const kycJobs = jobs.filter((row) => row.queue === 'kyc.verify');
    assert.equal(kycJobs.length, verifications.length, 'exactly one KYC job per verification: the 19 losers enqueued nothing');
    assert.ok(kycJobs.some((row) => row.payload.verificationId === mine[0]?.id));
  });

  test('the same race in the other mode and for another merchant creates its own single customer', async () => {
    const other = await context.createMerchant();
    const race = (apiKey: string, livemode: boolean) =>
      Promise.all(
        Array.from({ length: 10 }, () => context.request({ method: 'POST', url: `/v1/customers?livemode=${String(livemode)}`, apiKey, body: { referenceId: 'contended', signupAt: 1 } })),
      );
    for (const responses of [await race(merchant.apiKey, true), await race(other.apiKey, false)]) {
      assert.equal(responses.filter((response) => response.statusCode === 200).length, 1);
      assert.ok(responses.every((response) => response.statusCode === 200 || response.statusCode === 409));
    }
  });
});
