import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AppError } from '../../http/errors.ts';
import { parseCsv } from './csv.ts';

test('parseCsv: quoted fields, doubled quotes, CRLF and LF, a BOM; blank lines skipped; each row keeps the line it starts on', async () => {
  const text = '\uFEFFa,b\r\n\r\n   \n"x\ny","say ""hi"""\n,,\nz"q,3\r\nlast,6';
  assert.deepEqual(await parseCsv(text), [
    { line: 1, cells: ['a', 'b'] },
    { line: 4, cells: ['x\ny', 'say "hi"'] },
    { line: 6, cells: ['', '', ''] },
    { line: 7, cells: ['z"q', '3'] },
    { line: 8, cells: ['last', '6'] },
  ]);
});

test('parseCsv: rows with another number of fields are returned as they are (the row, not the file, is invalid)', async () => {
  assert.deepEqual(await parseCsv('a,b,c\n1,2\n1,2,3,4\n'), [
    { line: 1, cells: ['a', 'b', 'c'] },
    { line: 2, cells: ['1', '2'] },
    { line: 3, cells: ['1', '2', '3', '4'] },
  ]);
});

test('parseCsv: an unterminated quote rejects the file, naming the line the field starts on', async () => {
  await assert.rejects(
    () => parseCsv('h1,h2\n\nok,1\n"abc,1\nmore\n'),
    (error: unknown) => error instanceof AppError && error.code === 'WRONG_PARAMETER' && error.message === 'csv has an unterminated quoted field starting on line 4',
  );
});

test('parseCsv: a large file is read in chunks (multi-byte characters and quoted fields across chunk edges), letting other work run meanwhile', async () => {
  const rows = Array.from({ length: 3000 }, (_, index) => (index % 7 === 3 ? `"Zoë\n${index}",née,${index}` : `Zoë ${index},"a,""b""",${index}`));
  const text = ['name,other,n', ...rows].join('\r\n');
  assert.ok(Buffer.byteLength(text) > 3 * 16 * 1024, 'spans several chunks');
  let otherWorkRan = false;
  setImmediate(() => {
    otherWorkRan = true;
  });
  const parsed = await parseCsv(text);
  assert.equal(otherWorkRan, true, 'the event loop turned while the file was parsed');
  assert.equal(parsed.length, 3001);
  let line = 2;
  parsed.slice(1).forEach((row, index) => {
    assert.deepEqual(row, { line, cells: index % 7 === 3 ? [`Zoë\n${index}`, 'née', String(index)] : [`Zoë ${index}`, 'a,"b"', String(index)] }, `row ${index}`);
    line += index % 7 === 3 ? 2 : 1;
  });
});
