/**
 * Keccak-256 (the original Keccak submission with pad10*1 and domain byte 0x01, as Ethereum uses
 * it). Node's `sha3-256` is the FIPS 202 variant (domain byte 0x06) and gives different digests,
 * and OpenSSL here offers no `keccak256`, so the permutation is implemented below.
 *
 * Test vectors (keccak.test.ts): keccak256('') =
 * c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470, keccak256('abc') =
 * 4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45. The same sponge with domain
 * byte 0x06 must equal node's sha3-256, which checks the permutation against OpenSSL.
 */

const mask64 = (1n << 64n) - 1n;

const roundConstants = [
  0x0000000000000001n, 0x0000000000008082n, 0x800000000000808an, 0x8000000080008000n, 0x000000000000808bn, 0x0000000080000001n,
  0x8000000080008081n, 0x8000000000008009n, 0x000000000000008an, 0x0000000000000088n, 0x0000000080008009n, 0x000000008000000an,
  0x000000008000808bn, 0x800000000000008bn, 0x8000000000008089n, 0x8000000000008003n, 0x8000000000008002n, 0x8000000000000080n,
  0x000000000000800an, 0x800000008000000an, 0x8000000080008081n, 0x8000000000008080n, 0x0000000080000001n, 0x8000000080008008n,
];

/** Rotation offsets, indexed [x + 5y]. */
const rotations = [0, 1, 62, 28, 27, 36, 44, 6, 55, 20, 3, 10, 43, 25, 39, 41, 45, 15, 21, 8, 18, 2, 61, 56, 14].map(BigInt);

function rotl(value: bigint, shift: bigint): bigint {
  if (shift === 0n) {
    return value;
  }
  return ((value << shift) | (value >> (64n - shift))) & mask64;
}

function lane(state: bigint[], index: number): bigint {
  return state[index] ?? 0n;
}

/** keccak-f[1600] on 25 little-endian 64-bit lanes, in place. */
export function keccakF1600(state: bigint[]): void {
  const c = new Array<bigint>(5).fill(0n);
  const b = new Array<bigint>(25).fill(0n);
  for (const roundConstant of roundConstants) {
    // θ
    for (let x = 0; x < 5; x += 1) {
      c[x] = lane(state, x) ^ lane(state, x + 5) ^ lane(state, x + 10) ^ lane(state, x + 15) ^ lane(state, x + 20);
    }
    for (let x = 0; x < 5; x += 1) {
      const d = (c[(x + 4) % 5] ?? 0n) ^ rotl(c[(x + 1) % 5] ?? 0n, 1n);
      for (let y = 0; y < 25; y += 5) {
        state[x + y] = lane(state, x + y) ^ d;
      }
    }
    // ρ and π
    for (let x = 0; x < 5; x += 1) {
      for (let y = 0; y < 5; y += 1) {
        b[y + 5 * ((2 * x + 3 * y) % 5)] = rotl(lane(state, x + 5 * y), rotations[x + 5 * y] ?? 0n);
      }
    }
    // χ
    for (let y = 0; y < 25; y += 5) {
      for (let x = 0; x < 5; x += 1) {
        state[x + y] = (b[x + y] ?? 0n) ^ (~(b[((x + 1) % 5) + y] ?? 0n) & mask64 & (b[((x + 2) % 5) + y] ?? 0n));
      }
    }
    // ι
    state[0] = lane(state, 0) ^ roundConstant;
  }
}

/** The Keccak sponge with a 1600-bit state, `rate` bytes per block and the given domain byte. */
export function keccakSponge(input: Uint8Array, options: { rate: number; domain: number; outputBytes: number }): Uint8Array {
  const { rate, domain, outputBytes } = options;
  const state = new Array<bigint>(25).fill(0n);
  const padded = new Uint8Array(Math.floor(input.length / rate + 1) * rate);
  padded.set(input);
  padded[input.length] = (padded[input.length] ?? 0) ^ domain;
  padded[padded.length - 1] = (padded[padded.length - 1] ?? 0) ^ 0x80;
  for (let offset = 0; offset < padded.length; offset += rate) {
    for (let index = 0; index < rate / 8; index += 1) {
      let value = 0n;
      for (let byte = 7; byte >= 0; byte -= 1) {
        value = (value << 8n) | BigInt(padded[offset + index * 8 + byte] ?? 0);
      }
      state[index] = lane(state, index) ^ value;
    }
    keccakF1600(state);
  }
  const output = new Uint8Array(outputBytes);
  for (let index = 0; index < outputBytes; index += 1) {
    output[index] = Number((lane(state, Math.floor(index / 8)) >> BigInt(8 * (index % 8))) & 0xffn);
  }
  return output;
}

export function keccak256(input: Uint8Array | string): Uint8Array {
  const bytes = typeof input === 'string' ? new TextEncoder().encode(input) : input;
  return keccakSponge(bytes, { rate: 136, domain: 0x01, outputBytes: 32 });
}

export function keccak256Hex(input: Uint8Array | string): string {
  return Buffer.from(keccak256(input)).toString('hex');
}
