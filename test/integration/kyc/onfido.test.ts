import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestContext, json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { assertSucceeded, completeKyc, createCustomer, type CustomerData } from '../../helpers/assertions.ts';
import { jobRows } from '../../helpers/jobs.ts';
import { startOnfidoReplica, type OnfidoReplica } from '../../providers/onfido/replica.ts';
import { onfidoEventQueue } from '../../../src/modules/kyc/onfido/index.ts';

/** Live KYC through Onfido, end to end against the replica (the official package pointed at it through ONFIDO_API_URL). */
describe('KYC through Onfido (live mode, replica)', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let replica: OnfidoReplica;

  before(async () => {
    replica = await startOnfidoReplica();
    context = await createTestContext({ env: { ONFIDO_API_TOKEN: replica.apiToken, ONFIDO_WEBHOOK_TOKEN: replica.webhookToken, ONFIDO_REGION: 'EU', ONFIDO_API_URL: replica.url } });
    merchant = await context.createMerchant({ live: true });
  });
  after(async () => {
    await context.close();
    await replica.close();
  });

  const read = async (id: string) => assertSucceeded<CustomerData & { kycReason?: string }>(await context.request({ method: 'GET', url: `/v1/customers/${id}`, apiKey: merchant.apiKey }));

  function deliver(delivery: { body: string; headers: Record<string, string> }) {
    return context.request({ method: 'POST', url: '/providers/onfido/webhooks', body: delivery.body, headers: delivery.headers });
  }

  /** Creates a live customer, lets the job submit, and returns the customer and the check the replica holds. */
  async function submitted(lastName: string) {
    const customer = await createCustomer(context, merchant.apiKey, { ...completeKyc, lastName }, true);
    assert.equal(customer.kycStatus, 'PENDING');
    await context.drainJobs();
    const verification = await context.platform.services.kyc.latestVerification(customer.id);
    assert.equal(verification?.provider, 'onfido');
    const checkId = String(verification?.providerReference);
    assert.ok(replica.checks.has(checkId), 'the check exists at Onfido');
    assert.deepEqual(replica.checks.get(checkId)?.tags, [`paysail:${String(verification?.id)}:data`]);
    return { customer, verification, checkId };
  }

  async function completeAndNotify(checkId: string): Promise<void> {
    replica.complete(checkId);
    const response = await deliver(replica.webhook('check.completed', { type: 'check', id: checkId }));
    assert.equal(response.statusCode, 200, response.body);
    await context.drainJobs();
  }

  test('clear → APPROVED, decided by the check.completed webhook after fetching the check', async () => {
    const { customer, checkId } = await submitted('Lovelace');
    assert.equal((await read(customer.id)).kycStatus, 'PENDING', 'nothing decided before Onfido completes');
    const fetchesBefore = replica.requests.filter((request) => request.path === `/v3.6/checks/${checkId}`).length;
    await completeAndNotify(checkId);
    assert.equal((await read(customer.id)).kycStatus, 'APPROVED');
    assert.ok(replica.requests.filter((request) => request.path === `/v3.6/checks/${checkId}`).length > fetchesBefore, 'the check was fetched before acting');
    const verification = await context.platform.services.kyc.latestVerification(customer.id);
    assert.equal(verification?.decidedBy, 'provider');
    assert.deepEqual(verification?.breakdown, { identity_enhanced: 'clear' });
  });

  test('a clear rejection → REJECTED with a non-PII kycReason', async () => {
    const { customer, checkId } = await submitted('Rejected');
    await completeAndNotify(checkId);
    const decided = await read(customer.id);
    assert.equal(decided.kycStatus, 'REJECTED');
    assert.equal(decided.kycReason, 'onfido: the identity was rejected');
  });

  test('consider → stays PENDING in review; unidentified → document step-up', async () => {
    const review = await submitted('Consider');
    await completeAndNotify(review.checkId);
    const inReview = await read(review.customer.id);
    assert.equal(inReview.kycStatus, 'PENDING');
    assert.match(String(inReview.kycReason), /manual review/);
    assert.equal((await context.platform.services.kyc.latestVerification(review.customer.id))?.providerOutcome, 'REVIEW');

    const stepUp = await submitted('Unidentified');
    await completeAndNotify(stepUp.checkId);
    const waiting = await context.platform.services.kyc.awaitingDocuments(stepUp.customer.id);
    assert.ok(waiting, 'documents are asked for');
    const capture = await context.platform.services.kyc.stepUpCapture(waiting, 'http://paysail.test/*');
    assert.equal(capture?.kind, 'SDK');
    const token = capture?.kind === 'SDK' ? capture.token : '';
    assert.match(token, new RegExp(`^sdk-${String(waiting.providerApplicantId)}-`), 'the SDK token is made by Onfido for the applicant');
    assert.equal(capture?.kind === 'SDK' ? capture.scriptUrl : '', 'https://sdk.onfido.com/v14', 'Onfido\'s own SDK by default');
    assert.equal(await context.platform.services.kyc.submitDocuments(waiting.id, { documentId: 'not-uploaded', faceId: 'not-uploaded' }), 'CAPTURE_MISSING', 'Onfido holds no such upload');
    const uploaded = replica.captureAsSdk(token);
    assert.equal(await context.platform.services.kyc.submitDocuments(waiting.id, uploaded), 'SUBMITTED');
    await context.drainJobs();
    const documents = await context.platform.services.kyc.latestVerification(stepUp.customer.id);
    const documentCheck = replica.checks.get(String(documents?.providerReference));
    assert.deepEqual(documentCheck?.tags, [`paysail:${waiting.id}:documents`]);
    const names = (documentCheck?.report_ids ?? []).map((id) => replica.reports.get(id)?.name).sort();
    assert.deepEqual(names, ['document', 'facial_similarity_photo']);
    await completeAndNotify(String(documents?.providerReference));
    assert.equal((await read(stepUp.customer.id)).kycStatus, 'APPROVED');
  });

  test('webhooks: a bad or missing signature → 400 WRONG_PARAMETER and nothing recorded; a duplicate is recorded once; out of order is harmless', async () => {
    const { customer, checkId } = await submitted('Lovelace');
    const jobsBefore = (await jobRows(context.database, onfidoEventQueue)).length;
    const good = replica.webhook('check.completed', { type: 'check', id: checkId });
    const tampered = await deliver({ body: good.body.replace('check.completed', 'check.withdrawn'), headers: good.headers });
    assert.equal(tampered.statusCode, 400);
    assert.equal(json(tampered).errorCode, 'WRONG_PARAMETER');
    const unsigned = await deliver({ body: good.body, headers: { 'content-type': 'application/json' } });
    assert.equal(unsigned.statusCode, 400);
    const short = await deliver({ body: good.body, headers: { ...good.headers, 'x-sha2-signature': 'abcd' } });
    assert.equal(short.statusCode, 400);
    assert.equal((await jobRows(context.database, onfidoEventQueue)).length, jobsBefore, 'nothing recorded');

    // A report event before the check completes: fetched, still running, nothing decided.
    const reportId = String(replica.checks.get(checkId)?.report_ids?.[0]);
    assert.equal((await deliver(replica.webhook('report.completed', { type: 'report', id: reportId }))).statusCode, 200);
    await context.drainJobs();
    assert.equal((await read(customer.id)).kycStatus, 'PENDING');

    replica.complete(checkId);
    assert.equal((await deliver(good)).statusCode, 200);
    assert.equal((await deliver(good)).statusCode, 200, 'a redelivery is acknowledged');
    assert.equal((await jobRows(context.database, onfidoEventQueue)).length, jobsBefore + 2, 'the report event and the check event, the duplicate once');
    await context.drainJobs();
    assert.equal((await read(customer.id)).kycStatus, 'APPROVED');
    const decidedAt = (await context.platform.services.kyc.latestVerification(customer.id))?.decidedAt;
    assert.equal((await deliver(replica.webhook('report.completed', { type: 'report', id: reportId, status: 'complete' }))).statusCode, 200);
    await context.drainJobs();
    assert.equal((await context.platform.services.kyc.latestVerification(customer.id))?.decidedAt?.getTime(), decidedAt?.getTime(), 'a late event changes nothing');
  });

  test('the answer to the check creation is lost: the retry finds the check, exactly one exists', async () => {
    replica.loseNextAnswer('POST', '/checks');
    const customer = await createCustomer(context, merchant.apiKey, { ...completeKyc, lastName: 'Babbage' }, true);
    await context.drainJobs();
    const lost = await context.platform.services.kyc.latestVerification(customer.id);
    assert.equal(lost?.providerReference, null, 'the outcome of the call is unknown');
    assert.ok(lost?.checkRequestedAt, 'the attempt is recorded');
    const applicantId = String(lost?.providerApplicantId);
    assert.equal([...replica.checks.values()].filter((check) => check.applicant_id === applicantId).length, 1, 'Onfido did create it');
    for (let round = 0; round < 10 && !(await context.platform.services.kyc.latestVerification(customer.id))?.providerReference; round += 1) {
      context.clock.advance(10 * 60 * 1000);
      await context.drainJobs();
    }
    const found = await context.platform.services.kyc.latestVerification(customer.id);
    const checksOfApplicant = [...replica.checks.values()].filter((check) => check.applicant_id === applicantId);
    assert.equal(checksOfApplicant.length, 1, 'exactly one check');
    assert.equal(found?.providerReference, checksOfApplicant[0]?.id);
    assert.equal(replica.requests.filter((request) => request.method === 'POST' && request.path === '/v3.6/checks' && JSON.stringify(request.body).includes(String(lost?.id))).length, 1, 'created once, then looked up');

    // The webhook is lost too: the reconciliation poll settles it.
    replica.complete(String(found?.providerReference));
    context.clock.advance(15 * 60 * 1000);
    await context.drainJobs();
    assert.equal((await read(customer.id)).kycStatus, 'APPROVED');
  });

  test('the answer to the applicant creation is lost (the process may as well have died): the retry finds the applicant, exactly one exists', async () => {
    replica.loseNextAnswer('POST', '/applicants');
    const customer = await createCustomer(context, merchant.apiKey, { ...completeKyc, lastName: 'Turing' }, true);
    await context.drainJobs();
    const lost = await context.platform.services.kyc.latestVerification(customer.id);
    assert.equal(lost?.providerApplicantId, null, 'the outcome of the call is unknown');
    assert.ok(lost?.applicantRequestedAt, 'the attempt is recorded before the call');
    const turings = () => [...replica.applicants.values()].filter((applicant) => applicant.last_name === 'Turing');
    assert.equal(turings().length, 1, 'Onfido did create it');
    for (let round = 0; round < 10 && !(await context.platform.services.kyc.latestVerification(customer.id))?.providerReference; round += 1) {
      context.clock.advance(10 * 60 * 1000);
      await context.drainJobs();
    }
    const found = await context.platform.services.kyc.latestVerification(customer.id);
    assert.equal(turings().length, 1, 'exactly one applicant');
    assert.equal(found?.providerApplicantId, turings()[0]?.id, 'the retry adopted it');
    assert.equal(replica.requests.filter((request) => request.method === 'POST' && request.path === '/v3.6/applicants' && (request.body as { last_name?: string }).last_name === 'Turing').length, 1, 'created once, then looked up');
    assert.ok(replica.requests.some((request) => request.method === 'GET' && request.path.startsWith('/v3.6/applicants?')), 'looked up by listing the applicants');
    assert.equal([...replica.checks.values()].filter((check) => check.applicant_id === found?.providerApplicantId).length, 1, 'its check was started on it');
    replica.complete(String(found?.providerReference));
    await deliver(replica.webhook('check.completed', { type: 'check', id: String(found?.providerReference) }));
    await context.drainJobs();
    assert.equal((await read(customer.id)).kycStatus, 'APPROVED');
  });

  test('PII canary: Onfido receives only the fields the check needs; our logs hold no PII', async () => {
    await submitted('Canary');
    const creations = replica.requests.filter((request) => request.method === 'POST' && request.path === '/v3.6/applicants');
    assert.ok(creations.length > 0);
    for (const creation of creations) {
      const body = creation.body as Record<string, unknown>;
      assert.deepEqual(Object.keys(body).sort(), ['address', 'dob', 'first_name', 'last_name']);
      assert.deepEqual(Object.keys(body.address as object).sort(), ['country', 'line1', 'postcode', 'state', 'town']);
      assert.equal((body.address as { country: string }).country, 'USA');
    }
    // Only what was sent (bodies): paths carry random ids, in which any short digit run can appear.
    const everything = JSON.stringify(replica.requests.map((request) => request.body));
    for (const value of ['5550123', '555-0123', completeKyc.middleName, completeKyc.address.line2]) {
      assert.ok(!everything.includes(value), `no phone number, middle name or second address line: ${value} was sent`);
    }
    const logs = context.logs.join('\n');
    for (const secret of ['Canary', 'Lovelace', '1990-12-10', '1 Market St', '94105', '555-0123', replica.apiToken, replica.webhookToken]) {
      assert.equal(logs.includes(secret), false, `${secret} is not logged`);
    }
  });

  test('re-verification: an approved customer whose address changes gets a new applicant and check with the new data', async () => {
    const { customer, checkId, verification } = await submitted('Hopper');
    await completeAndNotify(checkId);
    assert.equal((await read(customer.id)).kycStatus, 'APPROVED');
    const moved = await context.request({ method: 'POST', url: `/v1/customers/${customer.id}`, apiKey: merchant.apiKey, body: { address: { line1: '9 Pier 39' } } });
    assert.equal(assertSucceeded<CustomerData>(moved).kycStatus, 'PENDING');
    await context.drainJobs();
    const second = await context.platform.services.kyc.latestVerification(customer.id);
    assert.notEqual(second?.id, verification?.id);
    assert.notEqual(second?.providerReference, checkId, 'a new check');
    const applicant = replica.requests.filter((request) => request.method === 'POST' && request.path === '/v3.6/applicants').at(-1)?.body as { address: { line1: string } };
    assert.equal(applicant.address.line1, '9 Pier 39', 'Onfido checks the new address');
    assert.equal((await read(customer.id)).kycStatus, 'PENDING', 'not approved until Onfido says so');
    await completeAndNotify(String(second?.providerReference));
    assert.equal((await read(customer.id)).kycStatus, 'APPROVED');
  });

  test('erasing the customer deletes the applicant at Onfido (a lost answer is settled by the retry: 404 means deleted)', async () => {
    const { customer, verification, checkId } = await submitted('Lovelace');
    await completeAndNotify(checkId);
    const applicantId = String(verification?.providerApplicantId);
    assert.ok(replica.applicants.has(applicantId));
    replica.loseNextAnswer('DELETE', `/applicants/${applicantId}`);
    const erased = await context.request({ method: 'POST', url: `/v1/customers/${customer.id}/erase`, apiKey: merchant.apiKey });
    assert.equal(erased.statusCode, 200, erased.body);
    await context.drainJobs(); // the first DELETE's answer is lost: the job fails and is retried later
    assert.ok(!replica.applicants.has(applicantId), 'Onfido deleted the applicant (its answer was lost)');
    assert.equal((await context.platform.services.kyc.latestVerification(customer.id))?.applicantDeletedAt ?? null, null, 'not recorded while the outcome is unknown');
    context.clock.advance(10 * 60_000);
    await context.drainJobs();
    const deletes = replica.requests.filter((request) => request.method === 'DELETE' && request.path === `/v3.6/applicants/${applicantId}`);
    assert.equal(deletes.length, 2, 'the retry asked again and got 404: the same outcome');
    assert.ok((await context.platform.services.kyc.latestVerification(customer.id))?.applicantDeletedAt instanceof Date, 'the deletion is recorded');
  });

  test('paysail providers check: the credentials are read with a harmless call', async () => {
    const [check] = context.platform.providerChecks.filter((candidate) => candidate.provider === 'onfido');
    assert.equal(check?.environment, 'live');
    assert.match(String(await check?.check()), /credentials work; no webhook for http:\/\/paysail\.test\/providers\/onfido\/webhooks/);
  });
});
