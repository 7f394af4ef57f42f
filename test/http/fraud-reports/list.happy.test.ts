import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { testCards } from '../../helpers/payment-pages.ts';
import { formatDate, fraudReportCalls, openFraudReportSuite, type FraudReportList as ListBody } from '../../helpers/fraud-reports.ts';

describe('GET /v1/fraud_reports: order and paging', () => {
  let context: TestContext;
  let other: TestMerchant;

  before(async () => ({ context, other } = await openFraudReportSuite()));
  after(async () => context.close());

  const { paidPage, report, list } = fraudReportCalls(() => context);

  test('list: newest fraudIssueDate first then id, default page of 10, offset/limit paging, count and hasMore', async () => {
    const lister = await context.createMerchant();
    const base = Math.floor(context.clock.now().getTime() / 1000) * 1000 + 24 * 60 * 60 * 1000;
    context.clock.set(base);
    const created: Array<{ id: string; issued: number }> = [];
    for (let index = 0; index < 23; index += 1) {
      const page = await paidPage(lister, index % 2 === 0 ? testCards.visaCredit : testCards.mastercardCredit);
      // Reports 5 and 6 share one issue date: the id breaks the tie.
      if (index !== 6) {
        context.clock.advance(60_000);
      }
      await report(lister, { paymentId: page.paymentId, fraudReason: `reason ${index}` });
      created.push({ id: String(page.paymentId), issued: context.clock.now().getTime() });
    }
    const expectedOrder = [...created].sort((a, b) => b.issued - a.issued || (a.id < b.id ? -1 : 1)).map((entry) => entry.id);

    const first = json<{ status: string; data: ListBody }>(await list(lister, ''));
    assert.equal(first.status, 'SUCCEEDED');
    assert.equal(first.data.count, 23);
    assert.equal(first.data.hasMore, true);
    assert.deepEqual(
      first.data.checkoutFraudReports.map((entry) => entry.checkoutPaymentId),
      expectedOrder.slice(0, 10),
    );
    const middle = json<{ data: ListBody }>(await list(lister, '?pagination[offset]=10&pagination[limit]=10')).data;
    assert.deepEqual(
      middle.checkoutFraudReports.map((entry) => entry.checkoutPaymentId),
      expectedOrder.slice(10, 20),
    );
    assert.equal(middle.hasMore, true);
    const last = json<{ data: ListBody }>(await list(lister, '?pagination%5Boffset%5D=20&pagination%5Blimit%5D=10')).data;
    assert.deepEqual(
      last.checkoutFraudReports.map((entry) => entry.checkoutPaymentId),
      expectedOrder.slice(20),
    );
    assert.equal(last.hasMore, false);
    assert.equal(last.count, 23);
    const beyond = json<{ data: ListBody }>(await list(lister, '?pagination[offset]=100')).data;
    assert.deepEqual(beyond, { checkoutFraudReports: [], count: 23, hasMore: false });
    const all = json<{ data: ListBody }>(await list(lister, '?pagination[limit]=100&livemode=false')).data;
    assert.equal(all.checkoutFraudReports.length, 23);
    assert.equal(all.hasMore, false);

    // filters[checkoutPaymentId]
    const target = created[4]?.id ?? '';
    const one = json<{ data: ListBody }>(await list(lister, `?filters[checkoutPaymentId]=${target}`)).data;
    assert.equal(one.count, 1);
    assert.equal(one.checkoutFraudReports[0]?.checkoutPaymentId, target);
    const foreign = json<{ data: ListBody }>(await list(other, `?filters[checkoutPaymentId]=${target}`)).data;
    assert.equal(foreign.count, 0);

    // filters[fraudIssueDateRange]: inclusive on both ends, UTC, with + or %20 for the space.
    const start = created[2]?.issued ?? 0;
    const end = created[9]?.issued ?? 0;
    const inRange = created.filter((entry) => entry.issued >= start && entry.issued <= end);
    const ranged = json<{ data: ListBody }>(
      await list(lister, `?filters[fraudIssueDateRange][start]=${formatDate(start).replace(' ', '+')}&filters[fraudIssueDateRange][end]=${encodeURIComponent(formatDate(end))}&pagination[limit]=100`),
    ).data;
    assert.equal(ranged.count, inRange.length);
    assert.deepEqual(
      ranged.checkoutFraudReports.map((entry) => entry.checkoutPaymentId).sort(),
      inRange.map((entry) => entry.id).sort(),
    );
    const startOnly = json<{ data: ListBody }>(await list(lister, `?filters[fraudIssueDateRange][start]=${encodeURIComponent(formatDate(end))}`)).data;
    assert.equal(startOnly.count, created.filter((entry) => entry.issued >= end).length);
    const endOnly = json<{ data: ListBody }>(await list(lister, `?filters[fraudIssueDateRange][end]=${encodeURIComponent(formatDate(start))}`)).data;
    assert.equal(endOnly.count, created.filter((entry) => entry.issued <= start).length);
  });
});
