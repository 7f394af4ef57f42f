import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AppError } from '../../http/errors.ts';
import { decodeBase58, isValidRoutingNumber, isValidSolanaAddress, maskDestination, normalizeEvmAddress, toChecksumAddress, validateDestination } from './destinations.ts';

function rejects(run: () => unknown, field: string): void {
  assert.throws(run, (error: unknown) => error instanceof AppError && error.code === 'WRONG_PARAMETER' && error.message.startsWith(field));
}

describe('ABA routing numbers', () => {
  test('real routing numbers pass the check digit', () => {
    for (const routing of ['021000021', '011000015', '121000358', '026009593', '322271627']) {
      assert.equal(isValidRoutingNumber(routing), true, routing);
    }
  });
  test('a wrong check digit, a wrong length, letters, all zeros and unused prefixes fail', () => {
    for (const routing of ['021000022', '123456789', '02100002', '0210000210', '02100002a', '000000000', '500000008']) {
      assert.equal(isValidRoutingNumber(routing), false, routing);
    }
  });
});

describe('EIP-55', () => {
  test('the hash is Keccak-256 as Ethereum uses it, not FIPS 202 sha3-256', () => {
    // keccak256('') is c5d2…a470; sha3-256('') would be a7ff…434a and give other checksums.
    assert.equal(toChecksumAddress('0x0000000000000000000000000000000000000000'), '0x0000000000000000000000000000000000000000');
    assert.equal(toChecksumAddress('0xffffffffffffffffffffffffffffffffffffffff'), '0xFFfFfFffFFfffFFfFFfFFFFFffFFFffffFfFFFfF');
  });
  // The four vectors of EIP-55 itself.
  const vectors = ['0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359', '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB', '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb'];
  test('checksums the EIP-55 test vectors', () => {
    for (const address of vectors) {
      assert.equal(toChecksumAddress(address.toLowerCase()), address);
      assert.equal(normalizeEvmAddress(address), address);
    }
  });
  test('all-lower and all-upper case carry no checksum and are normalised', () => {
    assert.equal(normalizeEvmAddress('0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed'), vectors[0]);
    assert.equal(normalizeEvmAddress('0x5AAEB6053F3E94C9B9A09F33669435E7EF1BEAED'), vectors[0]);
    assert.equal(normalizeEvmAddress('0x000000000000000000000000000000000000dead'), '0x000000000000000000000000000000000000dEaD');
  });
  test('a mixed-case address with one wrong case is refused; so are wrong lengths and non-hex', () => {
    assert.equal(normalizeEvmAddress('0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD'), null);
    assert.equal(normalizeEvmAddress('0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAe'), null);
    assert.equal(normalizeEvmAddress('5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed00'), null);
    assert.equal(normalizeEvmAddress('0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeg'), null);
  });
});

describe('Solana base58', () => {
  test('decodes leading ones as zero bytes', () => {
    assert.deepEqual(decodeBase58('11111111111111111111111111111111'), new Uint8Array(32));
    assert.deepEqual(decodeBase58('2g'), Uint8Array.from([0x61]));
    assert.deepEqual(decodeBase58(''), new Uint8Array(0));
    assert.equal(decodeBase58('2g0'), null, 'a foreign character');
    assert.equal(decodeBase58('2g '), null, 'whitespace is foreign too');
  });
  test('accepts 32-byte keys, refuses other lengths and foreign characters', () => {
    assert.equal(isValidSolanaAddress('11111111111111111111111111111111'), true);
    assert.equal(isValidSolanaAddress('So11111111111111111111111111111111111111112'), true);
    assert.equal(isValidSolanaAddress('US517G5965aydkZ46HS38QLi7UQiSojurfbQfKCdead'), true);
    assert.equal(isValidSolanaAddress('So1111111111111111111111111111111111111111'), false, '31 bytes');
    assert.equal(isValidSolanaAddress('0OIl1111111111111111111111111111111'), false, '0, O, I and l are not base58');
    assert.equal(isValidSolanaAddress('abc'), false);
  });
});

describe('validateDestination', () => {
  test('a bank account is normalised and masked to its last four digits', () => {
    const destination = validateDestination({ type: 'BANK_TRANSFER', accountHolderName: '  Ada   Lovelace ', routingNumber: '021-000-021', accountNumber: '0001 2345 6789', accountType: 'checking' });
    assert.deepEqual(destination, { type: 'BANK_TRANSFER', accountHolderName: 'Ada Lovelace', routingNumber: '021000021', accountNumber: '000123456789', accountType: 'CHECKING' });
    assert.deepEqual(maskDestination(destination), { type: 'BANK_TRANSFER', last4: '6789', accountType: 'CHECKING' });
  });
  test('bank field errors name the field', () => {
    const bank = { type: 'BANK_TRANSFER', accountHolderName: 'Ada', routingNumber: '021000021', accountNumber: '12345678', accountType: 'SAVINGS' };
    rejects(() => validateDestination({ ...bank, routingNumber: '021000022' }), 'payoutMethod.routingNumber');
    rejects(() => validateDestination({ ...bank, accountNumber: '123' }), 'payoutMethod.accountNumber');
    rejects(() => validateDestination({ ...bank, accountNumber: '123456789012345678' }), 'payoutMethod.accountNumber');
    rejects(() => validateDestination({ ...bank, accountNumber: '1234abcd' }), 'payoutMethod.accountNumber');
    rejects(() => validateDestination({ ...bank, accountType: 'BROKERAGE' }), 'payoutMethod.accountType');
    rejects(() => validateDestination({ ...bank, accountHolderName: ' ' }), 'payoutMethod.accountHolderName');
    rejects(() => validateDestination({ ...bank, accountHolderName: 'x'.repeat(101) }), 'payoutMethod.accountHolderName');
    rejects(() => validateDestination({ ...bank, address: '0x0' }), 'payoutMethod.address');
    rejects(() => validateDestination({ type: 'BANK_TRANSFER', accountHolderName: 'Ada', accountNumber: '1234', accountType: 'SAVINGS' }), 'payoutMethod.routingNumber');
  });
  test('wallets: EVM networks checksum, Solana base58; masked for responses', () => {
    const ethereum = validateDestination({ type: 'CRYPTO_WALLET', network: 'BASE', address: '0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed' });
    assert.deepEqual(ethereum, { type: 'CRYPTO_WALLET', network: 'BASE', address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed' });
    assert.deepEqual(maskDestination(ethereum), { type: 'CRYPTO_WALLET', network: 'BASE', address: '0x5aAe...eAed' });
    const solana = validateDestination({ type: 'CRYPTO_WALLET', network: 'SOLANA', address: 'So11111111111111111111111111111111111111112' });
    assert.deepEqual(maskDestination(solana), { type: 'CRYPTO_WALLET', network: 'SOLANA', address: 'So11...1112' });
    rejects(() => validateDestination({ type: 'CRYPTO_WALLET', network: 'ETHEREUM', address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD' }), 'payoutMethod.address');
    rejects(() => validateDestination({ type: 'CRYPTO_WALLET', network: 'SOLANA', address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed' }), 'payoutMethod.address');
    rejects(() => validateDestination({ type: 'CRYPTO_WALLET', network: 'ETHEREUM', address: 'So11111111111111111111111111111111111111112' }), 'payoutMethod.address');
    rejects(() => validateDestination({ type: 'CRYPTO_WALLET', network: 'BITCOIN', address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed' }), 'payoutMethod.network');
    rejects(() => validateDestination({ type: 'CRYPTO_WALLET', network: 'POLYGON', address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', accountNumber: '1234' }), 'payoutMethod.accountNumber');
    rejects(() => validateDestination({ type: 'PAYPAL' }), 'payoutMethod.type');
  });
});
