import { randomFillSync } from 'node:crypto';

/**
 * Random bytes drawn from a buffer refilled from the CSPRNG 8 KiB at a time (as Node does for
 * `randomUUID`): one `randomBytes(12)` per IV or request id cost more than the work it serves.
 *
 * The returned view is only valid until the next call that refills the buffer: use it (encode or
 * pass it to a cipher) synchronously, never across an `await`. Each byte is handed out once.
 */
const pool = Buffer.alloc(8192);
let offset = pool.length;

export function pooledRandomBytes(length: number): Buffer {
  if (length > pool.length) {
    throw new RangeError(`at most ${pool.length} pooled random bytes at a time`);
  }
  if (offset + length > pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  const view = pool.subarray(offset, offset + length);
  offset += length;
  return view;
}
