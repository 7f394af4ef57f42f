import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { constants, createHash, generateKeyPairSync, privateDecrypt, randomUUID, sign } from 'node:crypto';
import type { Balance, Blockchain, NotificationSignaturePublicKeyData, Transaction, TransactionState, Wallet } from '@circle-fin/developer-controlled-wallets';

/**
 * A replica of the Circle developer-controlled wallets calls Paysail makes, speaking Circle's wire
 * format with objects typed by `@circle-fin/developer-controlled-wallets`: the entity public key
 * (the package encrypts the entity secret with it; the replica decrypts and checks every
 * ciphertext), wallets and their token balances, transfers (created once per idempotency key,
 * listed by wallet and time, retrieved by id) and the notification public keys. Tests drive a
 * transfer through Circle's states and get each change as a notification signed like Circle's
 * (ECDSA P-256 / SHA-256 over the body, `X-Circle-Signature`, `X-Circle-Key-Id`). It can lose the
 * answers to creations (the transfer exists, the caller hears nothing).
 */
export interface CircleReplica {
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly entitySecret: string;
  /** The operator's wallets: one on ETH, one on BASE, one on SOL (none on MATIC). */
  readonly walletIds: readonly string[];
  readonly subscriptionId: string;
  transfers(): Transaction[];
  /** Transfer creation requests received (replays of an idempotency key included). */
  readonly createRequests: number;
  /** Notification key fetches (the app caches keys). */
  readonly keyFetches: number;
  /** Idempotency keys of the creation requests, in order. */
  readonly idempotencyKeys: readonly string[];
  loseCreateAnswers(count: number): void;
  /** The USDC balance (decimal string) of every wallet. */
  setUsdcBalance(amount: string): void;
  /** Moves a transfer to `state` (a hash once SENT) and returns the signed notification of it. */
  advance(transactionId: string, state: TransactionState, errorReason?: string): SignedNotification;
  /** A transfer out of the operator's first wallet that Paysail did not make (reconciliation must list it). */
  addForeignTransfer(amount: string): Transaction;
  /** Changes a transfer's amount behind Paysail's back (reconciliation must list it). */
  setAmount(transactionId: string, amount: string): void;
  /** A notification signed with a key Circle never published (its key id is unknown). */
  forge(transactionId: string): SignedNotification;
  close(): Promise<void>;
}

export interface SignedNotification {
  readonly notificationId: string;
  readonly body: string;
  readonly headers: Record<string, string>;
}

const now = () => new Date().toISOString();

export async function startCircleReplica(): Promise<CircleReplica> {
  const apiKey = `TEST_API_KEY:${randomUUID().replace(/-/g, '')}:${randomUUID().replace(/-/g, '')}`;
  const entitySecret = createHash('sha256').update(apiKey).digest('hex');
  const entityKeys = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const notificationKeys = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const keyId = randomUUID();
  const subscriptionId = randomUUID();
  const walletSetId = randomUUID();
  const wallets: Wallet[] = (['ETH-SEPOLIA', 'BASE-SEPOLIA', 'SOL-DEVNET'] as Blockchain[]).map((blockchain) => ({
    id: randomUUID(),
    address: blockchain === 'SOL-DEVNET' ? '7EYnhQoR9YM3N7UoaKRoA44Uy8JeaZV3qyouov87awMs' : '0x4a1f3e2bd3c3d5fa0e7f0c2d5bbd1e2a46b8e0c1',
    blockchain,
    createDate: now(),
    updateDate: now(),
    custodyType: 'DEVELOPER',
    state: 'LIVE',
    walletSetId,
  }));
  const byId = new Map<string, Transaction>();
  const byKey = new Map<string, string>();
  const idempotencyKeys: string[] = [];
  let createRequests = 0;
  let keyFetches = 0;
  let answersToLose = 0;
  let usdcBalance = '1000000.000000';

  function usdcOf(wallet: Wallet): Balance {
    return {
      amount: usdcBalance,
      updateDate: now(),
      token: { id: `usdc-${wallet.blockchain}`, blockchain: wallet.blockchain, isNative: false, symbol: 'USDC', name: 'USD Coin', decimals: 6, standard: 'ERC20', tokenAddress: '0x1c7d4b196cb0c7b01d743fbc6116a902379c7238', createDate: now(), updateDate: now() },
    };
  }

  function send(response: ServerResponse, status: number, body: unknown): void {
    response.writeHead(status, { 'content-type': 'application/json' });
    response.end(JSON.stringify(body));
  }

  function circleError(response: ServerResponse, status: number, code: number, message: string): void {
    send(response, status, { code, message });
  }

  function entitySecretMatches(ciphertext: unknown): boolean {
    if (typeof ciphertext !== 'string') {
      return false;
    }
    try {
      const plain = privateDecrypt({ key: entityKeys.privateKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' }, Buffer.from(ciphertext, 'base64'));
      return plain.toString('hex') === entitySecret;
    } catch {
      return false;
    }
  }

  function hashFor(transaction: Transaction): string {
    const digest = createHash('sha256').update(transaction.id).digest('hex');
    return transaction.blockchain.startsWith('SOL') ? Buffer.from(digest).toString('base64url').replace(/[-_0OIl]/g, 'x') : `0x${digest}`;
  }

  function notify(transaction: Transaction): SignedNotification {
    const notificationId = randomUUID();
    const body = JSON.stringify({ subscriptionId, notificationId, notificationType: 'transactions.outbound', notification: transaction, timestamp: now(), version: 2 });
    const signature = sign('sha256', Buffer.from(body), notificationKeys.privateKey).toString('base64');
    return { notificationId, body, headers: { 'content-type': 'application/json', 'x-circle-key-id': keyId, 'x-circle-signature': signature } };
  }

  async function readBody(request: IncomingMessage): Promise<Record<string, unknown>> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) {
      chunks.push(chunk as Buffer);
    }
    const text = Buffer.concat(chunks).toString('utf8');
    return text === '' ? {} : (JSON.parse(text) as Record<string, unknown>);
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://replica');
    if (request.headers.authorization !== `Bearer ${apiKey}`) {
      return circleError(response, 401, 401, 'Malformed authorization.');
    }
    const path = url.pathname;
    if (request.method === 'GET' && path === '/v1/w3s/config/entity/publicKey') {
      return send(response, 200, { data: { publicKey: entityKeys.publicKey.export({ type: 'spki', format: 'pem' }) } });
    }
    if (request.method === 'GET' && path === `/v2/notifications/publicKey/${keyId}`) {
      keyFetches += 1;
      const data: NotificationSignaturePublicKeyData = { id: keyId, algorithm: 'ECDSA_SHA_256', publicKey: notificationKeys.publicKey.export({ type: 'spki', format: 'der' }).toString('base64'), createDate: now() };
      return send(response, 200, { data });
    }
    if (request.method === 'GET' && path.startsWith('/v2/notifications/publicKey/')) {
      keyFetches += 1;
      return circleError(response, 404, 404, 'Public key not found.');
    }
    const walletMatch = /^\/v1\/w3s\/wallets\/([^/]+)(\/balances)?$/.exec(path);
    if (request.method === 'GET' && walletMatch) {
      const wallet = wallets.find((candidate) => candidate.id === walletMatch[1]);
      if (!wallet) {
        return circleError(response, 404, 156001, 'Wallet not found.');
      }
      return walletMatch[2] ? send(response, 200, { data: { tokenBalances: [usdcOf(wallet)] } }) : send(response, 200, { data: { wallet } });
    }
    if (request.method === 'POST' && path === '/v1/w3s/developer/transactions/transfer') {
      createRequests += 1;
      const body = await readBody(request);
      if (!entitySecretMatches(body.entitySecretCiphertext)) {
        return circleError(response, 400, 156013, 'The entity secret ciphertext is invalid.');
      }
      const key = String(body.idempotencyKey ?? '');
      idempotencyKeys.push(key);
      if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(key)) {
        return circleError(response, 400, 2, 'idempotencyKey must be a UUID.');
      }
      const wallet = wallets.find((candidate) => candidate.id === body.walletId);
      if (!wallet || body.tokenId !== `usdc-${wallet.blockchain}`) {
        return circleError(response, 400, 156004, 'Wallet or token not found.');
      }
      let transaction = byId.get(byKey.get(key) ?? '');
      if (!transaction) {
        const created: Transaction = {
          id: randomUUID(),
          blockchain: wallet.blockchain,
          walletId: wallet.id,
          sourceAddress: wallet.address,
          destinationAddress: String(body.destinationAddress),
          amounts: (body.amounts as string[] | undefined) ?? [],
          tokenId: String(body.tokenId),
          feeLevel: body.feeLevel as Transaction['feeLevel'],
          custodyType: 'DEVELOPER',
          operation: 'TRANSFER',
          transactionType: 'OUTBOUND',
          state: 'INITIATED',
          createDate: now(),
          updateDate: now(),
          ...(typeof body.refId === 'string' ? { refId: body.refId } : {}),
        };
        byId.set(created.id, created);
        byKey.set(key, created.id);
        transaction = created;
      }
      if (answersToLose > 0) {
        answersToLose -= 1;
        request.socket.destroy();
        return;
      }
      return send(response, 201, { data: { id: transaction.id, state: transaction.state } });
    }
    const transactionMatch = /^\/v1\/w3s\/transactions\/([^/]+)$/.exec(path);
    if (request.method === 'GET' && transactionMatch) {
      const transaction = byId.get(transactionMatch[1] ?? '');
      return transaction ? send(response, 200, { data: { transaction } }) : circleError(response, 404, 177001, 'Transaction not found.');
    }
    if (request.method === 'GET' && path === '/v1/w3s/transactions') {
      const walletIds = (url.searchParams.get('walletIds') ?? '').split(',').filter((id) => id !== '');
      const from = url.searchParams.get('from');
      const to = url.searchParams.get('to');
      const pageSize = Number(url.searchParams.get('pageSize') ?? '10');
      const pageAfter = url.searchParams.get('pageAfter');
      // Newest first, like Circle; pageAfter continues after the named transaction.
      let listed = [...byId.values()]
        .filter((transaction) => walletIds.length === 0 || walletIds.includes(transaction.walletId ?? ''))
        .filter((transaction) => (!from || transaction.createDate >= from) && (!to || transaction.createDate <= to))
        .reverse();
      if (pageAfter) {
        listed = listed.slice(listed.findIndex((transaction) => transaction.id === pageAfter) + 1);
      }
      return send(response, 200, { data: { transactions: listed.slice(0, pageSize) } });
    }
    return circleError(response, 404, 404, `No route ${request.method} ${path}`);
  }

  const server: Server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => circleError(response, 500, 500, String(error)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}`,
    apiKey,
    entitySecret,
    walletIds: wallets.map((wallet) => wallet.id),
    subscriptionId,
    transfers: () => [...byId.values()],
    get createRequests() {
      return createRequests;
    },
    get keyFetches() {
      return keyFetches;
    },
    idempotencyKeys,
    loseCreateAnswers(count) {
      answersToLose = count;
    },
    setUsdcBalance(amount) {
      usdcBalance = amount;
    },
    advance(transactionId, state, errorReason) {
      const transaction = byId.get(transactionId);
      if (!transaction) {
        throw new Error(`no transfer ${transactionId}`);
      }
      transaction.state = state;
      transaction.updateDate = now();
      if (['SENT', 'CONFIRMED', 'COMPLETE'].includes(state)) {
        transaction.txHash = hashFor(transaction);
      }
      if (errorReason) {
        transaction.errorReason = errorReason;
      }
      return notify(structuredClone(transaction));
    },
    addForeignTransfer(amount) {
      const wallet = wallets[0] as Wallet;
      const foreign: Transaction = {
        id: randomUUID(),
        blockchain: wallet.blockchain,
        walletId: wallet.id,
        sourceAddress: wallet.address,
        destinationAddress: '0x000000000000000000000000000000000000bEEF',
        amounts: [amount],
        tokenId: `usdc-${wallet.blockchain}`,
        custodyType: 'DEVELOPER',
        operation: 'TRANSFER',
        transactionType: 'OUTBOUND',
        state: 'COMPLETE',
        createDate: now(),
        updateDate: now(),
      };
      byId.set(foreign.id, foreign);
      return foreign;
    },
    setAmount(transactionId, amount) {
      const transaction = byId.get(transactionId);
      if (!transaction) {
        throw new Error(`no transfer ${transactionId}`);
      }
      transaction.amounts = [amount];
    },
    forge(transactionId) {
      const transaction = byId.get(transactionId);
      const body = JSON.stringify({ subscriptionId, notificationId: randomUUID(), notificationType: 'transactions.outbound', notification: { ...transaction, state: 'COMPLETE' }, timestamp: now(), version: 2 });
      const other = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
      return { notificationId: 'forged', body, headers: { 'content-type': 'application/json', 'x-circle-key-id': randomUUID(), 'x-circle-signature': sign('sha256', Buffer.from(body), other.privateKey).toString('base64') } };
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
