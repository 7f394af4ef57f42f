import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AppError } from '../../http/errors.ts';
import { detectLogoType, logoMaxBytes, prepareLogo } from './logo.ts';

const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(32, 1)]);
const jpeg = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(32, 2)]);
const svg = (body: string) => Buffer.from(`<?xml version="1.0" encoding="UTF-8"?>\n<!-- logo -->\n<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 10 10">${body}</svg>`);

function refusal(bytes: Buffer): string {
  try {
    prepareLogo(bytes);
  } catch (error) {
    assert.ok(error instanceof AppError);
    assert.equal(error.code, 'WRONG_PARAMETER');
    assert.equal(error.extra.field, 'logo');
    return error.message;
  }
  assert.fail('the logo was accepted');
}

test('the type comes from the bytes (magic numbers), whatever the file was called', () => {
  assert.equal(detectLogoType(png), 'png');
  assert.equal(detectLogoType(jpeg), 'jpeg');
  assert.equal(detectLogoType(svg('<rect width="1" height="1"/>')), 'svg');
  assert.equal(detectLogoType(Buffer.from('GIF89a\x01\x00')), null);
  assert.equal(detectLogoType(Buffer.from('<html><body><svg></svg></body></html>')), null);
  assert.equal(detectLogoType(Buffer.from([0x25, 0x50, 0x44, 0x46])), null);
});

test('size: exactly 256 KiB is accepted, one byte more is refused, empty is refused', () => {
  const atLimit = Buffer.concat([png, Buffer.alloc(logoMaxBytes - png.length)]);
  assert.equal(prepareLogo(atLimit).type, 'png');
  assert.match(refusal(Buffer.concat([atLimit, Buffer.from([0])])), /at most 256 KiB/);
  assert.match(refusal(Buffer.alloc(0)), /empty/);
  assert.match(refusal(Buffer.from('GIF89a')), /PNG, JPEG or SVG/);
});

test('PNG and JPEG are stored as sent, addressed by the SHA-256 of their bytes', () => {
  const prepared = prepareLogo(jpeg);
  assert.deepEqual(prepared.bytes, jpeg);
  assert.match(prepared.sha256, /^[0-9a-f]{64}$/);
  assert.equal(prepareLogo(jpeg).sha256, prepared.sha256);
});

test('an SVG is sanitised: no script, no event handlers, no external references, no foreignObject', () => {
  const dirty = svg(
    '<script>alert(1)</script>' +
      '<rect width="10" height="10" onload="alert(2)" onclick="alert(3)" fill="url(#g)" style="fill:url(https://evil.example/a)"/>' +
      '<defs><linearGradient id="g"><stop offset="0" stop-color="#fff"/></linearGradient></defs>' +
      '<use xlink:href="https://evil.example/sprite.svg#x"/><use href="//evil.example/s.svg#y"/>' +
      '<image href="https://evil.example/track.png" width="1" height="1"/>' +
      '<style>@import url(https://evil.example/x.css);</style><style>.a { fill: url("https://evil.example/b") }</style>' +
      '<foreignObject width="5" height="5"><div xmlns="http://www.w3.org/1999/xhtml"><iframe src="https://evil.example"></iframe></div></foreignObject>' +
      '<a href="javascript:alert(4)"><circle r="1"/></a>',
  );
  const clean = prepareLogo(dirty).bytes.toString('utf8');
  assert.match(clean, /^<svg[^>]* xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
  assert.match(clean, /<rect /, 'the drawing stays');
  assert.match(clean, /fill="url\(#g\)"/, 'references inside the document stay');
  for (const forbidden of [/<script/i, /alert/, /\son[a-z]+=/i, /evil\.example/, /foreignObject/i, /<iframe/i, /javascript:/i, /@import/]) {
    assert.doesNotMatch(clean, forbidden);
  }
});

test('an SVG that is not one standalone SVG document once sanitised is refused', () => {
  assert.match(refusal(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><p>HTML inside</p></svg>')), /not a usable SVG/);
  assert.match(refusal(Buffer.from('<svg><desc>a</desc></svg><svg></svg>')), /not a usable SVG/);
});
