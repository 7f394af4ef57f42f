import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestContext, type TestContext } from '../../helpers/context.ts';

describe('Paysail icon', () => {
  let context: TestContext;
  before(async () => {
    context = await createTestContext();
  });
  after(async () => context.close());

  test('/favicon.ico answers 200 with an ICO, /favicon.svg with the SVG icon', async () => {
    const ico = await context.app.inject({ method: 'GET', url: '/favicon.ico' });
    assert.equal(ico.statusCode, 200);
    assert.equal(ico.headers['content-type'], 'image/x-icon');
    assert.deepEqual([...ico.rawPayload.subarray(0, 4)], [0, 0, 1, 0], 'ICO header');
    assert.equal(ico.headers['x-content-type-options'], 'nosniff');
    const svg = await context.app.inject({ method: 'GET', url: '/favicon.svg' });
    assert.equal(svg.statusCode, 200);
    assert.equal(svg.headers['content-type'], 'image/svg+xml');
    assert.match(svg.body, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
  });
});
