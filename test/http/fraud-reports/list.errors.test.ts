import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { fraudReportCalls, openFraudReportSuite } from '../../helpers/fraud-reports.ts';
import type { ErrorBody as Failure } from '../../helpers/assertions.ts';

describe('GET /v1/fraud_reports: bad queries', () => {
  let context: TestContext;
  let merchant: TestMerchant;

  before(async () => ({ context, merchant } = await openFraudReportSuite()));
  after(async () => context.close());

  const { list } = fraudReportCalls(() => context);

  const badQueries: Array<[string, RegExp]> = [
    ['pagination[offset]=-1', /^pagination\[offset\] must be at least 0/],
    ['pagination[offset]=abc', /^pagination\[offset\] must be an integer/],
    ['pagination[offset]=1.5', /^pagination\[offset\] must be an integer/],
    ['pagination[limit]=0', /^pagination\[limit\] must be at least 1/],
    ['pagination[limit]=101', /^pagination\[limit\] must be at most 100/],
    ['pagination[limit]=', /^pagination\[limit\] must be an integer/],
    ['filters[fraudIssueDateRange][start]=2024-01-01T00:00:00', /^filters\[fraudIssueDateRange\]\[start\] has an invalid format/],
    ['filters[fraudIssueDateRange][end]=2024-01-01', /^filters\[fraudIssueDateRange\]\[end\] has an invalid format/],
    ['filters[fraudIssueDateRange][start]=2024-02-30%2000:00:00', /^filters\[fraudIssueDateRange\]\[start\] must be a real date/],
    ['filters[fraudIssueDateRange][start]=2024-03-02%2000:00:00&filters[fraudIssueDateRange][end]=2024-03-01%2000:00:00', /^filters\[fraudIssueDateRange\]\[start\] must not be after/],
    ['filters[checkoutPaymentId]=', /^filters\[checkoutPaymentId\] /],
    ['pagination[page]=2', /^pagination\[page\] is not a recognised field/],
    ['filters[status]=x', /^filters\[status\] is not a recognised field/],
    ['livemode=maybe', /^livemode must be a boolean/],
  ];

  for (const [query, message] of badQueries) {
    test(`list: 400 WRONG_PARAMETER for ${query}`, async () => {
      const response = await list(merchant, `?${query}`);
      assert.equal(response.statusCode, 400, response.body);
      const failure = json<Failure>(response);
      assert.equal(failure.errorCode, 'WRONG_PARAMETER');
      assert.match(failure.errorMessage, message);
    });
  }
});
