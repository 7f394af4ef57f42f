import assert from 'node:assert/strict';
import net, { type AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { and, asc, eq } from 'drizzle-orm';
import { events } from '../../src/db/schema/index.ts';
import { recordEvent, type EventType } from '../../src/modules/events/record.ts';
import { createTestContext, json, type TestContext, type TestMerchant } from '../helpers/context.ts';
import { createPage, payPage, testCards } from '../helpers/payment-pages.ts';
import { WebhookReceiver, assertVerified } from '../helpers/webhook-receiver.ts';
import { CliProcess, runInProcess, startInProcess } from './helpers.ts';

/**
 * `paysail listen` against a real listening server (the test context's app on loopback), forwarding
 * to a real loopback receiver that verifies every request with the standardwebhooks library and our
 * body-signature check, exactly like a merchant's endpoint.
 */
describe('paysail listen', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let other: TestMerchant;
  let receiver: WebhookReceiver;
  let apiUrl: string;

  before(async () => {
    context = await createTestContext();
    merchant = await context.createMerchant();
    other = await context.createMerchant();
    await context.app.listen({ port: 0, host: '127.0.0.1' });
    apiUrl = `http://127.0.0.1:${(context.app.server.address() as AddressInfo).port}`;
    receiver = await WebhookReceiver.start();
  });
  after(async () => {
    await receiver.close();
    await context.close();
  });

  async function pay(owner: TestMerchant): Promise<string> {
    const page = await createPage(context, owner);
    const response = await payPage(context, owner, page.id, testCards.visaCredit);
    assert.equal(response.statusCode, 200, response.body);
    return json<{ data: { id: string } }>(response).data.id;
  }

  async function paymentEventIds(pageIds: string[]): Promise<string[]> {
    const rows = await context.database.db
      .select({ id: events.id, pageId: events.data })
      .from(events)
      .where(and(eq(events.merchantId, merchant.id), eq(events.type, 'PAYMENT_SUCCEEDED')))
      .orderBy(asc(events.createdAt), asc(events.id));
    return rows.filter((row) => pageIds.includes(String((row.pageId as { pageId?: string }).pageId))).map((row) => row.id);
  }

  test('forwards the events created after it started, oldest first, signed like real deliveries; prints each answer; stops on SIGINT', async () => {
    const beforeStart = await pay(merchant);
    const listener = new CliProcess(['listen', '--forward-to', receiver.url('/hooks'), '--api-url', apiUrl, '--interval', '100'], { PAYSAIL_API_KEY: merchant.apiKey });
    let stopped = false;
    try {
      const [, secret = ''] = await listener.waitForOutput(/Webhook signing secret for this session: (whsec_\S+)\n/);
      await listener.waitForOutput(/Ready: polling every 100 ms from now on/);
      assert.match(listener.stdout, new RegExp(`^Forwarding sandbox events from ${apiUrl} to ${receiver.url('/hooks')}\n`));

      await pay(other);
      context.clock.advance(1000);
      const first = await pay(merchant);
      context.clock.advance(1000);
      const second = await pay(merchant);
      const forwardedLine = / {2}PAYMENT_SUCCEEDED {2}evt_\S+ {2}→ /g;
      await listener.waitUntil(() => (listener.stdout.match(forwardedLine) ?? []).length >= 2, 'two forwarded lines');

      const expected = await paymentEventIds([first, second]);
      assert.equal(expected.length, 2);
      assert.deepEqual(
        receiver.requests.map((request) => request.headers['webhook-id']),
        expected,
        "only this merchant's events created after start, oldest first",
      );
      for (const [index, request] of receiver.requests.entries()) {
        assert.equal(request.method, 'POST');
        assert.equal(request.path, '/hooks');
        const event = assertVerified(request, secret);
        assert.equal(event.type, 'PAYMENT_SUCCEEDED');
        assert.equal(event.livemode, false);
        assert.equal(event.data.pageId, [first, second][index]);
      }
      for (const id of expected) {
        assert.match(listener.stdout, new RegExp(`^\\d{2}:\\d{2}:\\d{2} {2}PAYMENT_SUCCEEDED {2}${id} {2}→ 200 \\(\\d+ ms\\)$`, 'm'));
      }
      assert.doesNotMatch(listener.stdout, new RegExp((await paymentEventIds([beforeStart]))[0] ?? 'none'), 'an event from before the start is not forwarded');

      receiver.answer = () => ({ status: 503, body: 'down' });
      context.clock.advance(1000);
      const third = await pay(merchant);
      const [thirdEvent] = await paymentEventIds([third]);
      await listener.waitForOutput(new RegExp(`PAYMENT_SUCCEEDED {2}${thirdEvent} {2}→ 503 `));
      assertVerified(receiver.requests[2] ?? receiver.requests[0], secret);

      stopped = true;
      assert.equal(await listener.stop('SIGINT'), 0, listener.stderr);
      assert.match(listener.stdout, /Stopped; forwarded 3 events\.\n$/);
      assert.equal(receiver.requests.length, 3);
    } finally {
      if (!stopped) {
        await listener.stop('SIGTERM');
      }
    }
  });

  test('--livemode, --events and a fixed --secret: only matching events of that mode, signed with that secret', async () => {
    const live = await context.createMerchant({ live: true });
    const secret = 'whsec_' + Buffer.from('a fixed secret for local runs').toString('base64');
    const record = async (livemode: boolean, type: EventType, data: Record<string, unknown>) => {
      context.clock.advance(1000);
      await context.database.transaction((tx) => recordEvent(tx, context.clock.now(), { merchantId: live.id, livemode, type, data }));
    };
    receiver.answer = () => ({ status: 204 });
    const before = receiver.requests.length;
    const listener = startInProcess(
      context.platform,
      ['listen', '--forward-to', receiver.url('/live'), '--api-url', apiUrl, '--livemode', '--events', 'PAYMENT_SUCCEEDED', '--secret', secret, '--interval', '100'],
      { PAYSAIL_API_KEY: live.apiKey },
    );
    await listener.waitUntil(() => listener.output.stdout.includes('Ready:'));
    assert.match(listener.output.stdout, /^Forwarding live events \(PAYMENT_SUCCEEDED\) from /);
    assert.match(listener.output.stdout, new RegExp(`Webhook signing secret for this session: ${secret.replace(/[+/]/g, '\\$&')}\n`));

    await record(true, 'FRAUD_REPORTED', { fraudReportId: 'pay_skipped' });
    await record(false, 'PAYMENT_SUCCEEDED', { pageId: 'sandbox-page' });
    await record(true, 'PAYMENT_SUCCEEDED', { pageId: 'live-page' });
    await listener.waitUntil(() => listener.output.stdout.includes('→ 204'));
    assert.equal(await listener.stop(), 0);

    const received = receiver.requests.slice(before);
    assert.equal(received.length, 1, 'the other type and the other mode were not forwarded');
    const event = assertVerified(received[0] ?? receiver.requests[0], secret);
    // The verified event is typed by its type (the SDK's union): checking the type narrows `data`.
    assert.ok(event.type === 'PAYMENT_SUCCEEDED', `forwarded ${event.type}`);
    assert.deepEqual([event.livemode, event.data.pageId], [true, 'live-page']);
    assert.match(listener.output.stdout, /Stopped; forwarded 1 event\.\n$/);
    receiver.answer = () => ({ status: 200, body: 'ok' });
  });

  test('a refused API key or an unreachable server ends it with exit 1 and the reason', async () => {
    const refused = await runInProcess(context.platform, ['listen', '--forward-to', receiver.url(), '--api-url', apiUrl], { env: { PAYSAIL_API_KEY: 'sk_not_a_key' } });
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /^paysail: http:\/\/127\.0\.0\.1:\d+ refused the API key \(401 UNAUTHORIZED: .*\)\n$/);
    assert.equal(refused.stdout, '');

    const live = await runInProcess(context.platform, ['listen', '--forward-to', receiver.url(), '--api-url', apiUrl, '--livemode'], { env: { PAYSAIL_API_KEY: merchant.apiKey } });
    assert.equal(live.code, 1, 'a sandbox-only merchant has no live events to listen to');
    assert.match(live.stderr, /\(403 LIVE_MODE_NOT_ENABLED: /);

    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const unreachable = await runInProcess(context.platform, ['listen', '--forward-to', receiver.url(), '--api-url', `http://127.0.0.1:${closedPort}`], { env: { PAYSAIL_API_KEY: merchant.apiKey } });
    assert.equal(unreachable.code, 1);
    assert.equal(unreachable.stderr, `paysail: cannot reach http://127.0.0.1:${closedPort}: ECONNREFUSED\n`);
  });
});
