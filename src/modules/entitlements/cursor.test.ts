import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { AppError } from '../../http/errors.ts';
import { decodeCursor, encodeCursor, type CursorScope } from './cursor.ts';

const key = randomBytes(32);
const scope: CursorScope = { merchantId: 'mer_a', subscriptionId: undefined, customerId: 'cus_1', isActive: true, livemode: false, sort: 'asc' };
const position = { createdAt: new Date(Date.UTC(2025, 0, 2, 3, 4, 5, 678)), id: 'ent_0123' };

function rejects(token: string, against: CursorScope = scope, withKey: Buffer = key): AppError {
  try {
    decodeCursor(withKey, against, token);
  } catch (error) {
    assert.ok(error instanceof AppError);
    assert.equal(error.code, 'WRONG_PARAMETER');
    assert.match(error.message, /^cursorToken /);
    return error;
  }
  assert.fail(`cursor ${token} was accepted`);
}

describe('entitlements cursor', () => {
  test('round-trips the position to the millisecond and is URL-safe', () => {
    const token = encodeCursor(key, scope, position);
    assert.match(token, /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    assert.deepEqual(decodeCursor(key, scope, token), position);
  });

  test('any edited character, a forged signature or another key is refused', () => {
    const token = encodeCursor(key, scope, position);
    for (let index = 0; index < token.length; index += 1) {
      const character = token[index] === 'A' ? 'B' : 'A';
      const edited = token.slice(0, index) + character + token.slice(index + 1);
      if (edited !== token) {
        rejects(edited);
      }
    }
    const [body] = token.split('.');
    const forgedBody = Buffer.from(JSON.stringify({ v: 1, m: 'mer_a', q: 'x', t: 0, i: 'ent_0' })).toString('base64url');
    rejects(`${forgedBody}.${token.split('.')[1] ?? ''}`);
    rejects(`${body ?? ''}.${randomBytes(32).toString('base64url')}`);
    rejects(token, scope, randomBytes(32));
    for (const garbage of ['', 'abc', '.', `${body ?? ''}.`, `${token}.x`, 'a'.repeat(2000)]) {
      rejects(garbage);
    }
  });

  test('bound to the merchant, the filters and the sort; not to the page size', () => {
    const token = encodeCursor(key, scope, position);
    assert.match(rejects(token, { ...scope, merchantId: 'mer_b' }).message, /not a valid cursor/);
    for (const changed of [{ customerId: 'cus_2' }, { customerId: undefined }, { subscriptionId: 'sub_1' }, { isActive: false }, { isActive: undefined }, { livemode: undefined }, { livemode: true }, { sort: 'desc' as const }]) {
      assert.match(rejects(token, { ...scope, ...changed }).message, /different filters or sort/, JSON.stringify(changed));
    }
  });
});
