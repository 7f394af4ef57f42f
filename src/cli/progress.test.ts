import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createProgress, trackProgress } from './progress.ts';

function capture(isTTY: boolean) {
  const output = { text: '', isTTY, write: (chunk: string) => (output.text += chunk) };
  return output;
}

describe('progress on stderr', () => {
  test('not a terminal: a plain "label n/total" line at each tenth of the work and at the end', () => {
    const output = capture(false);
    const progress = createProgress(output, 'rows', 20);
    for (let done = 0; done <= 20; done += 1) {
      progress.update(done);
    }
    progress.finish();
    progress.finish();
    const lines = output.text.trimEnd().split('\n');
    assert.deepEqual(lines, ['rows 0/20', 'rows 2/20', 'rows 4/20', 'rows 6/20', 'rows 8/20', 'rows 10/20', 'rows 12/20', 'rows 14/20', 'rows 16/20', 'rows 18/20', 'rows 20/20']);
    assert.doesNotMatch(output.text, /\r/);
  });

  test('a terminal: one bar redrawn in place with \\r, ended by a newline', () => {
    const output = capture(true);
    const progress = createProgress(output, 'rows', 4);
    progress.update(1);
    progress.update(2);
    progress.finish();
    assert.ok(output.text.startsWith(`\rrows [${'#'.repeat(8)}${'.'.repeat(22)}]  25% 1/4`), output.text);
    assert.ok(output.text.endsWith(`\rrows [${'#'.repeat(15)}${'.'.repeat(15)}]  50% 2/4\n`), output.text);
    assert.equal(output.text.split('\n').length, 2, 'one line');
  });

  test('nothing to do still ends with 0/0; trackProgress draws nothing when the work never reported', () => {
    const output = capture(false);
    createProgress(output, 'keys', 0).finish();
    assert.equal(output.text, 'keys 0/0\n');
    const silent = capture(false);
    trackProgress(silent, 'customers').finish();
    assert.equal(silent.text, '');
    const tracked = trackProgress(silent, 'customers');
    tracked.onProgress(0, 3);
    tracked.onProgress(3, 3);
    tracked.finish();
    assert.equal(silent.text, 'customers 0/3\ncustomers 3/3\n');
  });
});
