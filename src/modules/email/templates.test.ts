import assert from 'node:assert/strict';
import { test } from 'node:test';
import { escapeHtml, renderEmail } from './templates.ts';

test('renders a text part and an HTML part from one layout', () => {
  const email = renderEmail({ subject: 'Your payout is on its way', paragraphs: ['Hello Ada,', 'It is being sent.'], action: { label: 'View payout', url: 'https://pay.example/p/1?a=1&b=2' } });
  assert.equal(email.subject, 'Your payout is on its way');
  assert.match(email.text, /^Your payout is on its way\n\nHello Ada,\n\nIt is being sent\.\n\nView payout: https:\/\/pay\.example\/p\/1\?a=1&b=2\n/);
  assert.match(email.html, /<h1[^>]*>Your payout is on its way<\/h1>/);
  assert.match(email.html, /href="https:\/\/pay\.example\/p\/1\?a=1&amp;b=2"/);
});

test('every value is HTML-escaped; subjects stay on one line; links must be http(s)', () => {
  const email = renderEmail({ subject: 'Hi <b>\r\nBcc: x@evil', title: '"Ti<tle>"', paragraphs: ["<script>alert('x')</script> & co"], footer: '<i>f</i>' });
  assert.equal(email.subject, 'Hi <b> Bcc: x@evil');
  assert.ok(!email.html.includes('<script>'));
  assert.ok(email.html.includes('&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; co'));
  assert.ok(email.html.includes('&quot;Ti&lt;tle&gt;&quot;'));
  assert.ok(email.html.includes('&lt;i&gt;f&lt;/i&gt;'));
  assert.ok(email.text.includes("<script>alert('x')</script> & co"), 'the text part is plain text');
  assert.throws(() => renderEmail({ subject: 's', paragraphs: [], action: { label: 'x', url: 'javascript:alert(1)' } }), /http or https/);
  assert.equal(escapeHtml(`&<>"'`), '&amp;&lt;&gt;&quot;&#39;');
});

test('rows render as label–value lines in text and as an escaped table in HTML', () => {
  const email = renderEmail({ subject: 'Receipt', paragraphs: ['Thanks.'], rows: [['2 × <Tea>', '$4.00'], ['Total', '$4.00']] });
  assert.match(email.text, /Thanks\.\n\n2 × <Tea>: \$4\.00\nTotal: \$4\.00\n/);
  assert.match(email.html, /<td[^>]*>2 × &lt;Tea&gt;<\/td><td align="right"[^>]*>\$4\.00<\/td>/);
  assert.ok(!renderEmail({ subject: 's', paragraphs: ['p'] }).html.includes('<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="margin:0 0 16px'), 'no rows, no table');
});
