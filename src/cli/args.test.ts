import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { integerFlag, parseArgs, type FlagSpec } from './args.ts';
import { UsageError } from './io.ts';

const spec = {
  positionals: [{ name: 'FILE' }, { name: 'MORE', optional: true }],
  flags: {
    network: { type: 'string', description: '', choices: ['visa', 'mastercard'] },
    livemode: { type: 'boolean', description: '' },
    name: { type: 'string', description: '' },
  } satisfies Record<string, FlagSpec>,
};

describe('parseArgs', () => {
  test('positionals and flags in any order, --flag value and --flag=value, --no-flag, and -- ending options', () => {
    assert.deepEqual(parseArgs('x', ['--network', 'visa', 'a.csv', '--livemode'], spec), { positionals: ['a.csv'], flags: { network: 'visa', livemode: true } });
    assert.deepEqual(parseArgs('x', ['a.csv', '--network=mastercard', '--livemode=false'], spec), { positionals: ['a.csv'], flags: { network: 'mastercard', livemode: false } });
    assert.deepEqual(parseArgs('x', ['--no-livemode', 'a.csv', 'b'], spec), { positionals: ['a.csv', 'b'], flags: { livemode: false } });
    assert.deepEqual(parseArgs('x', ['--name=', '--', '--odd-file-name'], spec), { positionals: ['--odd-file-name'], flags: { name: '' } });
    assert.deepEqual(parseArgs('x', ['-'], spec).positionals, ['-']);
  });

  test('there are no short options: single-dash words are positionals; a string flag takes a value that starts with one dash', () => {
    assert.deepEqual(parseArgs('x', ['-5', '-abc'], spec), { positionals: ['-5', '-abc'], flags: {} });
    assert.deepEqual(parseArgs('x', ['a', '--name', '-5', '--livemode=yes'], spec), { positionals: ['a'], flags: { name: '-5', livemode: true } });
    assert.deepEqual(parseArgs('x', ['a', '--livemode=0', '--livemode'], spec), { positionals: ['a'], flags: { livemode: true } }, 'the last one wins');
    assert.deepEqual(parseArgs('x', ['--', '--', '-x'], spec), { positionals: ['--', '-x'], flags: {} }, 'only the first -- ends options');
  });

  test('usage errors name the problem and the command', () => {
    const cases: Array<[string[], RegExp]> = [
      [[], /^missing FILE$/],
      [['a', 'b', 'c'], /^unexpected argument "c"$/],
      [['a', '--bogus'], /^unknown option --bogus$/],
      [['a', '--no-name'], /^unknown option --no-name$/],
      [['a', '--network'], /^--network needs a value$/],
      [['a', '--network', '--livemode'], /^--network needs a value$/],
      [['a', '--name', '--'], /^--name needs a value$/],
      [['a', '--livemode', 'b', 'c'], /^unexpected argument "c"$/],
      [['a', '--network', 'amex'], /^--network must be one of visa, mastercard, got "amex"$/],
      [['a', '--livemode=perhaps'], /^--livemode must be true or false, got "perhaps"$/],
    ];
    for (const [argv, message] of cases) {
      assert.throws(
        () => parseArgs('fraud import', argv, spec),
        (error: unknown) => error instanceof UsageError && message.test(error.message) && error.command === 'fraud import',
        argv.join(' '),
      );
    }
  });

  test('integerFlag: default when absent, range-checked digits otherwise', () => {
    const intervalSpec = { positionals: [], flags: { interval: { type: 'string', description: '' } satisfies FlagSpec } };
    assert.equal(integerFlag('listen', parseArgs('listen', [], intervalSpec), 'interval', 1000, { min: 100, max: 60_000 }), 1000);
    assert.equal(integerFlag('listen', parseArgs('listen', ['--interval', '250'], intervalSpec), 'interval', 1000, { min: 100, max: 60_000 }), 250);
    for (const bad of ['99', '60001', '1e3', '-5', '2.5', 'abc']) {
      assert.throws(() => integerFlag('listen', parseArgs('listen', [`--interval=${bad}`], intervalSpec), 'interval', 1000, { min: 100, max: 60_000 }), UsageError, bad);
    }
  });
});
