import { AppError, wrongParameter } from '../../http/errors.ts';
import type { PayoutMethodMask } from '../../db/schema/index.ts';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { base58 } from '@scure/base';

export const payoutMethodTypes = ['BANK_TRANSFER', 'CRYPTO_WALLET'] as const;
export type PayoutMethodType = (typeof payoutMethodTypes)[number];
export const bankAccountTypes = ['CHECKING', 'SAVINGS'] as const;
export type BankAccountType = (typeof bankAccountTypes)[number];
export const cryptoNetworks = ['ETHEREUM', 'POLYGON', 'BASE', 'SOLANA'] as const;
export type CryptoNetwork = (typeof cryptoNetworks)[number];

/** A validated, normalised payout destination. Secret at rest: sealed, never returned whole. */
export type PayoutDestination =
  | { type: 'BANK_TRANSFER'; accountHolderName: string; routingNumber: string; accountNumber: string; accountType: BankAccountType }
  | { type: 'CRYPTO_WALLET'; network: CryptoNetwork; address: string };

/** What the customer (hosted form) or the test helper sends; every field is checked here. */
export interface PayoutMethodInput {
  type: string;
  accountHolderName?: string;
  routingNumber?: string;
  accountNumber?: string;
  accountType?: string;
  network?: string;
  address?: string;
}

/**
 * ABA routing number: nine digits, a Federal Reserve prefix (00–12, 21–32, 61–72, 80) and the
 * checksum 3·(d1+d4+d7) + 7·(d2+d5+d8) + (d3+d6+d9) ≡ 0 (mod 10).
 */
export function isValidRoutingNumber(value: string): boolean {
  if (!/^\d{9}$/.test(value) || value === '000000000') {
    return false;
  }
  const prefix = Number(value.slice(0, 2));
  if (!((prefix >= 0 && prefix <= 12) || (prefix >= 21 && prefix <= 32) || (prefix >= 61 && prefix <= 72) || prefix === 80)) {
    return false;
  }
  const digit = (index: number) => Number(value[index]);
  const sum = 3 * (digit(0) + digit(3) + digit(6)) + 7 * (digit(1) + digit(4) + digit(7)) + (digit(2) + digit(5) + digit(8));
  return sum % 10 === 0;
}

/** EIP-55: the hex digit at i is upper case when nibble i of keccak256(lower-case hex) is ≥ 8. */
export function toChecksumAddress(address: string): string {
  const hex = address.slice(2).toLowerCase();
  // Keccak-256 as Ethereum uses it (domain byte 0x01), not FIPS 202 sha3-256 (node's createHash).
  const hash = bytesToHex(keccak_256(utf8ToBytes(hex)));
  let output = '0x';
  for (let index = 0; index < hex.length; index += 1) {
    const character = hex[index] ?? '';
    output += parseInt(hash[index] ?? '0', 16) >= 8 ? character.toUpperCase() : character;
  }
  return output;
}

/**
 * An EVM address (Ethereum, Polygon, Base): `0x` + 40 hex digits. Mixed case must be a correct
 * EIP-55 checksum (a typo is caught); all-lower or all-upper case carries no checksum and is
 * accepted as such (ethers' getAddress does the same). Returns the checksummed form, or null.
 */
export function normalizeEvmAddress(value: string): string | null {
  if (!/^0x[0-9a-fA-F]{40}$/.test(value)) {
    return null;
  }
  const body = value.slice(2);
  const checksummed = toChecksumAddress(value);
  if (body === body.toLowerCase() || body === body.toUpperCase()) {
    return checksummed;
  }
  return checksummed === value ? checksummed : null;
}

/** Bitcoin-alphabet base58 → bytes (leading '1's are zero bytes); null on a foreign character. */
export function decodeBase58(value: string): Uint8Array | null {
  try {
    return base58.decode(value);
  } catch {
    return null;
  }
}

/** A Solana address: the base58 form of a 32-byte public key (32–44 characters). */
export function isValidSolanaAddress(value: string): boolean {
  if (value.length < 32 || value.length > 44) {
    return false;
  }
  return decodeBase58(value)?.length === 32;
}

function required(input: PayoutMethodInput, field: keyof PayoutMethodInput, prefix: string): string {
  const value = input[field];
  if (value === undefined || value.trim() === '') {
    throw wrongParameter(`${prefix}${field}`, `is required when ${prefix}type is ${input.type}`);
  }
  return value.trim();
}

function forbidden(input: PayoutMethodInput, fields: ReadonlyArray<keyof PayoutMethodInput>, prefix: string): void {
  for (const field of fields) {
    if (input[field] !== undefined) {
      throw wrongParameter(`${prefix}${field}`, `is not a field of ${input.type} payout methods`);
    }
  }
}

/** Runs one field's check; a WRONG_PARAMETER it throws is collected instead, and the field has no value. */
function checked<T>(problems: AppError[], check: () => T): T | undefined {
  try {
    return check();
  } catch (error) {
    if (error instanceof AppError && error.code === 'WRONG_PARAMETER') {
      problems.push(error);
      return undefined;
    }
    throw error;
  }
}

function bankDestination(input: PayoutMethodInput, prefix: string, problems: AppError[]): PayoutDestination | null {
  checked(problems, () => forbidden(input, ['network', 'address'], prefix));
  const accountHolderName = checked(problems, () => {
    const value = required(input, 'accountHolderName', prefix).replace(/\s+/g, ' ');
    if (value.length > 100 || /[\p{Cc}]/u.test(value)) {
      throw wrongParameter(`${prefix}accountHolderName`, 'must be at most 100 printable characters');
    }
    return value;
  });
  const routingNumber = checked(problems, () => {
    const value = required(input, 'routingNumber', prefix).replace(/[\s-]/g, '');
    if (!isValidRoutingNumber(value)) {
      throw wrongParameter(`${prefix}routingNumber`, 'must be a valid 9-digit ABA routing number (its check digit does not match)');
    }
    return value;
  });
  const accountNumber = checked(problems, () => {
    const value = required(input, 'accountNumber', prefix).replace(/[\s-]/g, '');
    if (!/^\d{4,17}$/.test(value)) {
      throw wrongParameter(`${prefix}accountNumber`, 'must be 4 to 17 digits');
    }
    return value;
  });
  const accountType = checked(problems, () => {
    const value = required(input, 'accountType', prefix).toUpperCase();
    if (!(bankAccountTypes as readonly string[]).includes(value)) {
      throw wrongParameter(`${prefix}accountType`, `must be one of ${bankAccountTypes.join(', ')}`);
    }
    return value as BankAccountType;
  });
  return accountHolderName !== undefined && routingNumber !== undefined && accountNumber !== undefined && accountType !== undefined
    ? { type: 'BANK_TRANSFER', accountHolderName, routingNumber, accountNumber, accountType }
    : null;
}

function walletDestination(input: PayoutMethodInput, prefix: string, problems: AppError[]): PayoutDestination | null {
  checked(problems, () => forbidden(input, ['accountHolderName', 'routingNumber', 'accountNumber', 'accountType'], prefix));
  const network = checked(problems, () => {
    const value = required(input, 'network', prefix).toUpperCase();
    if (!(cryptoNetworks as readonly string[]).includes(value)) {
      throw wrongParameter(`${prefix}network`, `must be one of ${cryptoNetworks.join(', ')}`);
    }
    return value as CryptoNetwork;
  });
  const address = checked(problems, () => required(input, 'address', prefix));
  if (network === undefined || address === undefined) {
    return null;
  }
  if (network === 'SOLANA') {
    if (!isValidSolanaAddress(address)) {
      problems.push(wrongParameter(`${prefix}address`, 'must be a Solana address (base58 encoding of 32 bytes)'));
      return null;
    }
    return { type: 'CRYPTO_WALLET', network, address };
  }
  const normalized = normalizeEvmAddress(address);
  if (!normalized) {
    problems.push(wrongParameter(`${prefix}address`, `must be a ${network} address: 0x and 40 hex digits, with a valid EIP-55 checksum when mixed case`));
    return null;
  }
  return { type: 'CRYPTO_WALLET', network, address: normalized };
}

/**
 * Every problem of what the customer entered, in form order (the hosted page shows them all at once;
 * the API answers the first); each names its field (`payoutMethod.routingNumber …`).
 */
export function destinationProblems(input: PayoutMethodInput, prefix = 'payoutMethod.'): { destination: PayoutDestination | null; problems: AppError[] } {
  const problems: AppError[] = [];
  if (input.type !== 'BANK_TRANSFER' && input.type !== 'CRYPTO_WALLET') {
    return { destination: null, problems: [wrongParameter(`${prefix}type`, `must be one of ${payoutMethodTypes.join(', ')}`)] };
  }
  const destination = input.type === 'BANK_TRANSFER' ? bankDestination(input, prefix, problems) : walletDestination(input, prefix, problems);
  return { destination: problems.length === 0 ? destination : null, problems };
}

/** Validates what the customer entered: the first of `destinationProblems` as 400 WRONG_PARAMETER. */
export function validateDestination(input: PayoutMethodInput, prefix = 'payoutMethod.'): PayoutDestination {
  const { destination, problems } = destinationProblems(input, prefix);
  if (!destination) {
    throw problems[0] ?? new Error('a payout method without a destination or a problem');
  }
  return destination;
}

export function maskAddress(address: string): string {
  const head = address.startsWith('0x') ? 6 : 4;
  return `${address.slice(0, head)}...${address.slice(-4)}`;
}

/** The stored, non-secret description of a destination. */
export function maskDestination(destination: PayoutDestination): PayoutMethodMask {
  if (destination.type === 'BANK_TRANSFER') {
    return { type: 'BANK_TRANSFER', last4: destination.accountNumber.slice(-4), accountType: destination.accountType };
  }
  return { type: 'CRYPTO_WALLET', network: destination.network, address: maskAddress(destination.address) };
}

/** Sealed-field names ↔ destination. */
export function destinationFields(destination: PayoutDestination): Record<string, string> {
  return Object.fromEntries(Object.entries(destination).map(([field, value]) => [field, String(value)]));
}

export function destinationFromFields(fields: Record<string, string>): PayoutDestination {
  if (fields.type === 'BANK_TRANSFER') {
    return {
      type: 'BANK_TRANSFER',
      accountHolderName: fields.accountHolderName ?? '',
      routingNumber: fields.routingNumber ?? '',
      accountNumber: fields.accountNumber ?? '',
      accountType: (fields.accountType ?? 'CHECKING') as BankAccountType,
    };
  }
  return { type: 'CRYPTO_WALLET', network: (fields.network ?? 'ETHEREUM') as CryptoNetwork, address: fields.address ?? '' };
}
