import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buttonColorsFor, contrastRatio, darkInk, lightInk } from './contrast.ts';

test('contrast ratios match the WCAG test vectors', () => {
  assert.equal(contrastRatio('#ffffff', '#000000'), 21);
  assert.equal(contrastRatio('#000000', '#ffffff'), 21);
  assert.equal(contrastRatio('#777777', '#777777'), 1);
  assert.equal(contrastRatio('#ffffff', '#1d4ed8').toFixed(2), '6.70');
  assert.equal(contrastRatio('#ffffff', '#767676').toFixed(2), '4.54');
});

test('dark colours get white text, light colours near-black text, each at least 4.5:1', () => {
  const purple = buttonColorsFor('#635bff');
  assert.equal(purple?.text, lightInk);
  assert.ok((purple?.contrast ?? 0) >= 4.5);
  const yellow = buttonColorsFor('#ffd400');
  assert.equal(yellow?.text, darkInk);
  assert.ok((yellow?.contrast ?? 0) >= 4.5);
});

test('a mid-grey on which neither white nor near-black reaches 4.5:1 is refused', () => {
  assert.equal(buttonColorsFor('#787878'), null);
  assert.equal(buttonColorsFor('#7c7c7c'), null);
  assert.notEqual(buttonColorsFor('#747474'), null);
});

test('the focus ring is the brand colour when it stands out on white (3:1), else the ink', () => {
  assert.equal(buttonColorsFor('#635bff')?.focus, '#635bff');
  assert.equal(buttonColorsFor('#ffd400')?.focus, darkInk);
});
