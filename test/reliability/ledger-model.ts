import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import fc from 'fast-check';
import { queryRows } from '../../src/db/client.ts';
import { AppError } from '../../src/http/errors.ts';
import { maxPayoutAmount } from '../../src/modules/payout-pages/schemas.ts';
import { createTestContext, json, type TestContext, type TestMerchant } from '../helpers/context.ts';
import { assertLedgerInvariants, createLedgerWatch } from '../helpers/ledger.ts';
import { createTestWorker } from '../helpers/jobs.ts';
import type { JobDefinition } from '../../src/jobs/worker.ts';
import { bankMethod, deadWalletMethod, fullKyc, rejectedBankMethod, walletMethod } from '../helpers/payout-pages.ts';

/**
 * Ledger model check (issue 9, item 7): fast-check drives random sequences of payout page
 * commands — fund, create (including overdrafts), confirm with every sandbox destination and KYC
 * outcome, KYC submission, release, cancel, decline, time passing (expiry, KYC decisions, the
 * sandbox rail's outcomes) — against the real platform (HTTP inject on the real database, the real
 * job worker) and against a small in-memory model of the state table and the four ledger
 * accounts. After every command the model's page states and balances must equal the API's
 * answer (`GET /v1/balance`) and the ledger's tables; no non-external balance may go below zero;
 * the SQL invariants of `test/helpers/ledger.ts` are checked every `invariantsEvery` steps and at
 * the end of every run (incrementally: `createLedgerWatch`), and in full once at the end. Each
 * fast-check run uses a fresh merchant, so its model starts from the known sandbox opening balance;
 * a run ends by cancelling what is open and letting the rail settle (still through checked
 * commands), so nothing of it moves during later runs.
 */

type Currency = 'USDC' | 'USD';
const currencies: readonly Currency[] = ['USDC', 'USD'];

type KycStatus = 'NOT_STARTED' | 'PENDING' | 'APPROVED' | 'REJECTED';
type PageState =
  | 'CREATED/AWAITING_CUSTOMER'
  | 'PENDING/KYC_REQUIRED'
  | 'PENDING/KYC_IN_REVIEW'
  | 'PENDING/AWAITING_RELEASE'
  | 'PROCESSING/SUBMITTED'
  | 'PROCESSED/PAID'
  | 'FAILED/KYC_REJECTED'
  | 'FAILED/PAYOUT_REJECTED'
  | 'CANCELED/MERCHANT_CANCELED'
  | 'CANCELED/CUSTOMER_DECLINED'
  | 'EXPIRED/NOT_COMPLETED';

/** The sandbox delays the model assumes (createTestContext's SANDBOX_*_DELAY_MS) and the pollers' interval. */
const kycDelayMs = 2_000;
const railDelayMs = 2_000;
const railPollMs = 1_000;

interface ModelBalance {
  available: number;
  reserved: number;
  inFlight: number;
  external: number;
}

interface ModelCustomer {
  referenceId: string;
  kyc: KycStatus;
  /** When PENDING: the time the sandbox provider decides (set when the verify job first runs), and what. */
  decidesAt?: number;
  outcome?: 'APPROVED' | 'REJECTED';
}

interface ModelPage {
  id: string;
  currency: Currency;
  amount: number;
  releaseMethod: 'AUTOMATIC' | 'MANUAL';
  customer: number;
  state: PageState;
  expiresAt: number;
  /** Set at confirmation: the sandbox rail rejects this destination. */
  railRejects: boolean;
  /** While PROCESSING: when the rail's outcome is ready and when the settle job polls next (unset until the submit job ran). */
  railReadyAt?: number;
  settleAt?: number;
}

export interface LedgerModel {
  now: number;
  balances: Record<Currency, ModelBalance>;
  customers: ModelCustomer[];
  pages: ModelPage[];
}

interface Real {
  context: TestContext;
  /** Runs the payout page and KYC jobs only (see modelWorker). */
  drainModelJobs: () => Promise<number>;
  /** The SQL invariants of the whole ledger, read incrementally (createLedgerWatch: the same rules as assertLedgerInvariants). */
  checkLedger: () => Promise<void>;
  merchant: TestMerchant;
  /** clientReferenceId prefix of this run's pages. */
  prefix: string;
}

type Movement = 'reserve' | 'release' | 'submit' | 'settle' | 'return';
const movements: Record<Movement, { from: keyof ModelBalance; to: keyof ModelBalance }> = {
  reserve: { from: 'available', to: 'reserved' },
  release: { from: 'reserved', to: 'available' },
  submit: { from: 'reserved', to: 'inFlight' },
  settle: { from: 'inFlight', to: 'external' },
  return: { from: 'inFlight', to: 'available' },
};

const openStates: ReadonlySet<PageState> = new Set(['CREATED/AWAITING_CUSTOMER', 'PENDING/KYC_REQUIRED', 'PENDING/KYC_IN_REVIEW', 'PENDING/AWAITING_RELEASE']);

// ---------------------------------------------------------------- the model's rules

function move(model: LedgerModel, page: ModelPage, movement: Movement): void {
  const { from, to } = movements[movement];
  const balance = model.balances[page.currency];
  balance[from] -= page.amount;
  balance[to] += page.amount;
  for (const kind of ['available', 'reserved', 'inFlight'] as const) {
    assert.ok(balance[kind] >= 0, `model: ${page.currency} ${kind} went negative (${balance[kind]}) on ${movement} of ${page.id}`);
  }
}

/** PENDING/AWAITING_RELEASE, and for AUTOMATIC pages the release the system does at once. */
function approve(model: LedgerModel, page: ModelPage): void {
  page.state = 'PENDING/AWAITING_RELEASE';
  if (page.releaseMethod === 'AUTOMATIC') {
    submit(model, page);
  }
}

function submit(model: LedgerModel, page: ModelPage): void {
  page.state = 'PROCESSING/SUBMITTED';
  move(model, page, 'submit');
  // The submit job runs at the next drain; railReadyAt and settleAt are set then.
  delete page.railReadyAt;
  delete page.settleAt;
}

function finish(model: LedgerModel, page: ModelPage, state: PageState, movement: Movement): void {
  page.state = state;
  move(model, page, movement);
  delete page.railReadyAt;
  delete page.settleAt;
}

/** Where confirming a CREATED page leads, by the customer's KYC status (the state table's confirm rows). */
function confirmInModel(model: LedgerModel, page: ModelPage): void {
  const customer = model.customers[page.customer];
  assert.ok(customer);
  switch (customer.kyc) {
    case 'NOT_STARTED':
      page.state = 'PENDING/KYC_REQUIRED';
      return;
    case 'PENDING':
      page.state = 'PENDING/KYC_IN_REVIEW';
      return;
    case 'APPROVED':
      approve(model, page);
      return;
    case 'REJECTED':
      finish(model, page, 'FAILED/KYC_REJECTED', 'release');
      return;
  }
}

/** Identity data submitted for `page` (helper's `kyc` or the hosted form): KYC starts, the page waits for it. */
function submitKycInModel(model: LedgerModel, page: ModelPage, rejected: boolean): void {
  const customer = model.customers[page.customer];
  assert.ok(customer);
  if (customer.kyc === 'NOT_STARTED') {
    // The first complete identity data starts verification; later submissions keep known fields.
    customer.kyc = 'PENDING';
    delete customer.decidesAt;
    customer.outcome = rejected ? 'REJECTED' : 'APPROVED';
  }
  page.state = 'PENDING/KYC_IN_REVIEW';
}

/**
 * What the job worker does when it runs every due job at `model.now` (only the Advance command
 * drains, so jobs queued by other commands wait for it, as they would for a busy worker):
 * 1. KYC verify jobs queued since the last drain submit to the sandbox provider, which decides
 *    kycDelayMs later (the job re-polls at exactly that time);
 * 2. due KYC decisions move the customer's waiting pages (AUTOMATIC ones on to PROCESSING);
 * 3. expiry jobs of unconfirmed pages past expiresAt; submit jobs of PROCESSING pages (the rail is
 *    ready railDelayMs later, the settle job first polls after railPollMs); due settle polls:
 *    the outcome when the rail is ready, else another poll railPollMs later.
 */
function drainInModel(model: LedgerModel): void {
  for (const customer of model.customers) {
    if (customer.kyc === 'PENDING' && customer.decidesAt === undefined) {
      customer.decidesAt = model.now + kycDelayMs;
    }
  }
  for (const [index, customer] of model.customers.entries()) {
    if (customer.kyc !== 'PENDING' || customer.decidesAt === undefined || customer.decidesAt > model.now || !customer.outcome) {
      continue;
    }
    customer.kyc = customer.outcome;
    for (const page of model.pages) {
      if (page.customer !== index || (page.state !== 'PENDING/KYC_REQUIRED' && page.state !== 'PENDING/KYC_IN_REVIEW')) {
        continue;
      }
      if (customer.kyc === 'APPROVED') {
        approve(model, page);
      } else {
        finish(model, page, 'FAILED/KYC_REJECTED', 'release');
      }
    }
  }
  for (const page of model.pages) {
    if (page.state === 'CREATED/AWAITING_CUSTOMER' && page.expiresAt <= model.now) {
      finish(model, page, 'EXPIRED/NOT_COMPLETED', 'release');
    }
    if (page.state !== 'PROCESSING/SUBMITTED') {
      continue;
    }
    if (page.railReadyAt === undefined || page.settleAt === undefined) {
      page.railReadyAt = model.now + railDelayMs;
      page.settleAt = model.now + railPollMs;
    } else if (page.settleAt <= model.now) {
      if (page.railReadyAt <= model.now) {
        finish(model, page, page.railRejects ? 'FAILED/PAYOUT_REJECTED' : 'PROCESSED/PAID', page.railRejects ? 'return' : 'settle');
      } else {
        page.settleAt = model.now + railPollMs;
      }
    }
  }
}

// ---------------------------------------------------------------- comparing model and service

export interface LedgerModelStats {
  steps: number;
  runs: number;
  commands: Record<string, number>;
  /** Outcomes seen: HTTP status (or error code) per command, and final page states. */
  outcomes: Record<string, number>;
  invariantChecks: number;
  /**
   * Comparisons of the real service with the model that were made (and agreed: a disagreement
   * throws): `state` counts the ledger_accounts + page-state comparisons (after every step and at
   * the end of every run), `api` the `GET /v1/balance` ones.
   */
  comparisons: { state: number; api: number };
  /** CPU time of this process (PGlite included) per command kind and for the checks, in ms. */
  cpuMs: Record<string, number>;
}

function count(record: Record<string, number>, key: string): void {
  record[key] = (record[key] ?? 0) + 1;
}

/** The merchant's four sandbox accounts per currency, straight from `ledger_accounts`. */
async function readAccounts(real: Real): Promise<Record<Currency, ModelBalance>> {
  const accounts = await queryRows<{ currency: Currency; kind: string; balance: number | string }>(
    real.context.database.db,
    sql`select currency, kind, balance from ledger_accounts where merchant_id = ${real.merchant.id} and livemode = false`,
  );
  const of = (currency: Currency, kind: string) => {
    const row = accounts.find((candidate) => candidate.currency === currency && candidate.kind === kind);
    assert.ok(row, `the ${currency} ${kind} account exists`);
    return Number(row.balance);
  };
  const balances = {} as Record<Currency, ModelBalance>;
  for (const currency of currencies) {
    balances[currency] = { available: of(currency, 'available'), reserved: of(currency, 'reserved'), inFlight: of(currency, 'in_flight'), external: of(currency, 'external') };
  }
  return balances;
}

/** The service's answer: `GET /v1/balance?livemode=false`. */
async function readApiBalances(real: Real): Promise<Record<Currency, Omit<ModelBalance, 'external'>>> {
  const response = await real.context.request({ method: 'GET', url: '/v1/balance?livemode=false', apiKey: real.merchant.apiKey });
  assert.equal(response.statusCode, 200, response.body);
  const answered = json<{ data: Array<{ currency: Currency; livemode: boolean; available: number; reserved: number; inFlight: number }> }>(response).data;
  assert.equal(answered.length, currencies.length, 'one balance per funding currency');
  const balances = {} as Record<Currency, Omit<ModelBalance, 'external'>>;
  for (const entry of answered) {
    assert.equal(entry.livemode, false);
    balances[entry.currency] = { available: entry.available, reserved: entry.reserved, inFlight: entry.inFlight };
  }
  return balances;
}

async function verify(model: LedgerModel, real: Real, stats: LedgerModelStats, checks: { api: boolean; invariants: boolean }): Promise<void> {
  const { context, merchant } = real;
  // One round trip: the merchant's sandbox accounts and every page of this run (found by its
  // clientReferenceId prefix, so a page the model does not know about would show up too).
  const rows = await queryRows<{ kind: 'account' | 'page'; key: string; value: string }>(
    context.database.db,
    sql`select 'account' as kind, currency || '/' || kind as key, balance::text as value from ledger_accounts where merchant_id = ${merchant.id} and livemode = false
        union all
        select 'page' as kind, id as key, status || '/' || sub_status as value from payout_pages
        where merchant_id = ${merchant.id} and livemode = false and client_reference_id like ${`${real.prefix}%`}`,
  );
  const accounts = Object.fromEntries(rows.filter((row) => row.kind === 'account').map((row) => [row.key, Number(row.value)]));
  const expectedAccounts: Record<string, number> = {};
  for (const currency of currencies) {
    const balance = model.balances[currency];
    Object.assign(expectedAccounts, {
      [`${currency}/available`]: balance.available,
      [`${currency}/reserved`]: balance.reserved,
      [`${currency}/in_flight`]: balance.inFlight,
      [`${currency}/external`]: balance.external,
    });
  }
  assert.deepEqual(accounts, expectedAccounts, 'ledger_accounts equal the model');
  for (const [key, balance] of Object.entries(accounts)) {
    assert.ok(key.endsWith('/external') || balance >= 0, `${key} is not negative`);
  }
  const pages = Object.fromEntries(rows.filter((row) => row.kind === 'page').map((row) => [row.key, row.value]));
  assert.deepEqual(pages, Object.fromEntries(model.pages.map((page) => [page.id, page.state])), 'payout page states equal the model');
  stats.comparisons.state += 1;
  if (checks.api) {
    const api = await readApiBalances(real);
    const expected = Object.fromEntries(currencies.map((currency) => [currency, { available: model.balances[currency].available, reserved: model.balances[currency].reserved, inFlight: model.balances[currency].inFlight }]));
    assert.deepEqual(api, expected, 'GET /v1/balance equals the model');
    stats.comparisons.api += 1;
  }
  if (checks.invariants) {
    await real.checkLedger();
    stats.invariantChecks += 1;
  }
}

// ---------------------------------------------------------------- commands

interface Env {
  stats: LedgerModelStats;
  invariantsEvery: number;
  apiEvery: number;
}

type ModelCommand = fc.AsyncCommand<LedgerModel, Real>;

/**
 * The page a command acts on: `pick` among the pages the action suits when `targeted` (so most
 * commands move something), else among all pages (so invalid actions — release twice, cancel
 * after release, confirm a canceled page — are tried too).
 */
interface PagePick {
  index: number;
  targeted: boolean;
}

function pageAt(model: Readonly<LedgerModel>, pick: PagePick, suits: (page: ModelPage) => boolean): ModelPage | undefined {
  const suited = pick.targeted ? model.pages.filter(suits) : [];
  const candidates = suited.length > 0 ? suited : model.pages;
  return candidates.length === 0 ? undefined : candidates[pick.index % candidates.length];
}

function describePick(pick: PagePick): string {
  return `${pick.targeted ? 'suited' : 'any'} page #${pick.index}`;
}

function assertResponse(response: { statusCode: number; body: string }, expected: { status: number; errorCode?: string; state?: PageState }, what: string): void {
  assert.equal(response.statusCode, expected.status, `${what}: HTTP ${response.statusCode} ${response.body}`);
  const body = JSON.parse(response.body) as { status: string; errorCode?: string; data?: { status: string; 'sub-status': string } };
  if (expected.errorCode) {
    assert.equal(body.status, 'FAILED', what);
    assert.equal(body.errorCode, expected.errorCode, what);
  }
  if (expected.state) {
    assert.equal(`${body.data?.status}/${body.data?.['sub-status']}`, expected.state, `${what}: state in the answer`);
  }
}

abstract class Command implements ModelCommand {
  constructor(protected readonly env: Env) {}
  abstract readonly name: string;
  check(_model: Readonly<LedgerModel>): boolean {
    return true;
  }
  protected abstract apply(model: LedgerModel, real: Real): Promise<void>;
  async run(model: LedgerModel, real: Real): Promise<void> {
    const { stats } = this.env;
    count(stats.commands, this.name);
    const cpu = process.cpuUsage();
    await this.apply(model, real);
    const used = process.cpuUsage(cpu);
    stats.cpuMs[this.name] = (stats.cpuMs[this.name] ?? 0) + (used.user + used.system) / 1000;
    stats.steps += 1;
    const verifyCpu = process.cpuUsage();
    await verify(model, real, stats, { api: stats.steps % this.env.apiEvery === 0, invariants: stats.steps % this.env.invariantsEvery === 0 });
    const verified = process.cpuUsage(verifyCpu);
    stats.cpuMs.verify = (stats.cpuMs.verify ?? 0) + (verified.user + verified.system) / 1000;
  }
  protected outcome(label: string): void {
    count(this.env.stats.outcomes, `${this.name} → ${label}`);
  }
  abstract toString(): string;
}

class Fund extends Command {
  readonly name = 'fund';
  constructor(env: Env, private readonly currency: Currency, private readonly amount: number) {
    super(env);
  }
  protected async apply(model: LedgerModel, real: Real): Promise<void> {
    const response = await real.context.request({ method: 'POST', url: '/v1/test_helpers/balance/fund?livemode=false', apiKey: real.merchant.apiKey, body: { currency: this.currency, amount: this.amount } });
    if (this.amount < 1) {
      assertResponse(response, { status: 400, errorCode: 'WRONG_PARAMETER' }, this.toString());
      this.outcome('400');
      return;
    }
    assertResponse(response, { status: 200 }, this.toString());
    model.balances[this.currency].available += this.amount;
    model.balances[this.currency].external -= this.amount;
    this.outcome('200');
  }
  toString(): string {
    return `fund(${this.currency}, ${this.amount})`;
  }
}

class Create extends Command {
  readonly name = 'create';
  constructor(
    env: Env,
    private readonly currency: Currency,
    /** An amount, or `overdraft`: one more than the model's available balance. */
    private readonly amount: number | 'overdraft',
    private readonly releaseMethod: 'AUTOMATIC' | 'MANUAL',
    private readonly customer: number,
    private readonly lifetimeMs: number | undefined,
  ) {
    super(env);
  }
  override check(model: Readonly<LedgerModel>): boolean {
    return this.amount !== 'overdraft' || model.balances[this.currency].available < maxPayoutAmount;
  }
  protected async apply(model: LedgerModel, real: Real): Promise<void> {
    const amount = this.amount === 'overdraft' ? model.balances[this.currency].available + 1 : this.amount;
    const customer = model.customers[this.customer % model.customers.length];
    assert.ok(customer);
    const body = {
      amount,
      fundingCurrency: this.currency,
      clientReferenceId: `${real.prefix}${model.pages.length}`,
      releaseMethod: this.releaseMethod,
      customer: { referenceId: customer.referenceId, email: 'model@example.com' },
      ...(this.lifetimeMs !== undefined ? { expiresAt: model.now + this.lifetimeMs } : {}),
    };
    const response = await real.context.request({ method: 'POST', url: '/v1/payout_pages?livemode=false', apiKey: real.merchant.apiKey, body });
    if (amount > model.balances[this.currency].available) {
      assertResponse(response, { status: 409, errorCode: 'INSUFFICIENT_FUNDS' }, this.toString());
      this.outcome('409 INSUFFICIENT_FUNDS');
      return;
    }
    assertResponse(response, { status: 200, state: 'CREATED/AWAITING_CUSTOMER' }, this.toString());
    const page: ModelPage = {
      id: json<{ data: { id: string } }>(response).data.id,
      currency: this.currency,
      amount,
      releaseMethod: this.releaseMethod,
      customer: this.customer % model.customers.length,
      state: 'CREATED/AWAITING_CUSTOMER',
      expiresAt: model.now + (this.lifetimeMs ?? 7 * 24 * 60 * 60 * 1000),
      railRejects: false,
    };
    model.pages.push(page);
    move(model, page, 'reserve');
    this.outcome('200');
  }
  toString(): string {
    return `create(${this.currency}, ${this.amount}, ${this.releaseMethod}, customer ${this.customer}, lifetime ${this.lifetimeMs ?? 'default'})`;
  }
}

const destinations = {
  bank: { method: bankMethod, rejects: false },
  rejectedBank: { method: rejectedBankMethod, rejects: true },
  wallet: { method: walletMethod, rejects: false },
  deadWallet: { method: deadWalletMethod, rejects: true },
} as const;
type DestinationName = keyof typeof destinations;

const rejectedKyc = { ...fullKyc, lastName: 'Rejected' };

class Confirm extends Command {
  readonly name = 'confirm';
  constructor(
    env: Env,
    private readonly pick: PagePick,
    private readonly destination: DestinationName,
    private readonly kyc: 'none' | 'approved' | 'rejected',
  ) {
    super(env);
  }
  override check(model: Readonly<LedgerModel>): boolean {
    return model.pages.length > 0;
  }
  protected async apply(model: LedgerModel, real: Real): Promise<void> {
    const page = pageAt(model, this.pick, (candidate) => candidate.state === 'CREATED/AWAITING_CUSTOMER');
    assert.ok(page);
    const body = { payoutMethod: destinations[this.destination].method, ...(this.kyc === 'none' ? {} : { kyc: this.kyc === 'rejected' ? rejectedKyc : fullKyc }) };
    const response = await real.context.request({ method: 'POST', url: `/v1/test_helpers/payout_pages/${page.id}/confirm?livemode=false`, apiKey: real.merchant.apiKey, body });
    if (page.state !== 'CREATED/AWAITING_CUSTOMER' || page.expiresAt <= model.now) {
      assertResponse(response, { status: 409, errorCode: 'INVALID_STATE' }, this.toString());
      this.outcome('409 INVALID_STATE');
      return;
    }
    page.railRejects = destinations[this.destination].rejects;
    confirmInModel(model, page);
    if (this.kyc !== 'none' && (page.state as PageState) === 'PENDING/KYC_REQUIRED') {
      submitKycInModel(model, page, this.kyc === 'rejected');
    }
    assertResponse(response, { status: 200, state: page.state }, this.toString());
    this.outcome(`200 ${page.state}`);
  }
  toString(): string {
    return `confirm(${describePick(this.pick)}, ${this.destination}, kyc ${this.kyc})`;
  }
}

/** The hosted KYC form's submission (a service call: the hosted page needs an e-mailed code first). */
class SubmitKyc extends Command {
  readonly name = 'submitKyc';
  constructor(env: Env, private readonly pick: PagePick, private readonly rejected: boolean) {
    super(env);
  }
  override check(model: Readonly<LedgerModel>): boolean {
    return model.pages.length > 0;
  }
  protected async apply(model: LedgerModel, real: Real): Promise<void> {
    const page = pageAt(model, this.pick, (candidate) => candidate.state === 'PENDING/KYC_REQUIRED');
    assert.ok(page);
    let failure: AppError | undefined;
    try {
      await real.context.platform.services.payoutPages.submitKyc(page.id, this.rejected ? rejectedKyc : fullKyc);
    } catch (error) {
      if (!(error instanceof AppError)) {
        throw error;
      }
      failure = error;
    }
    if (page.state !== 'PENDING/KYC_REQUIRED') {
      assert.equal(failure?.code, 'INVALID_STATE', this.toString());
      this.outcome('INVALID_STATE');
      return;
    }
    assert.equal(failure, undefined, this.toString());
    submitKycInModel(model, page, this.rejected);
    this.outcome('ok');
  }
  toString(): string {
    return `submitKyc(${describePick(this.pick)}, ${this.rejected ? 'rejected' : 'approved'})`;
  }
}

class PageAction extends Command {
  constructor(
    env: Env,
    readonly name: 'release' | 'cancel' | 'decline',
    private readonly pick: PagePick,
  ) {
    super(env);
  }
  override check(model: Readonly<LedgerModel>): boolean {
    return model.pages.length > 0;
  }
  protected async apply(model: LedgerModel, real: Real): Promise<void> {
    const page = pageAt(model, this.pick, (candidate) => (this.name === 'release' ? candidate.state === 'PENDING/AWAITING_RELEASE' && candidate.releaseMethod === 'MANUAL' : openStates.has(candidate.state)));
    assert.ok(page);
    const url = this.name === 'decline' ? `/v1/test_helpers/payout_pages/${page.id}/decline?livemode=false` : `/v1/payout_pages/${page.id}/${this.name}`;
    const response = await real.context.request({ method: 'POST', url, apiKey: real.merchant.apiKey });
    const allowed = this.name === 'release' ? page.state === 'PENDING/AWAITING_RELEASE' && page.releaseMethod === 'MANUAL' : openStates.has(page.state);
    if (!allowed) {
      assertResponse(response, { status: 409, errorCode: 'INVALID_STATE' }, this.toString());
      this.outcome(`409 from ${page.state}`);
      return;
    }
    if (this.name === 'release') {
      submit(model, page);
    } else {
      finish(model, page, this.name === 'cancel' ? 'CANCELED/MERCHANT_CANCELED' : 'CANCELED/CUSTOMER_DECLINED', 'release');
    }
    assertResponse(response, { status: 200, state: page.state }, this.toString());
    this.outcome('200');
  }
  toString(): string {
    return `${this.name}(${describePick(this.pick)})`;
  }
}

/** Another merchant acting on this merchant's page: 404, and nothing moves. */
class Foreign extends Command {
  readonly name = 'foreign';
  constructor(env: Env, private readonly pick: PagePick, private readonly action: 'cancel' | 'release') {
    super(env);
  }
  override check(model: Readonly<LedgerModel>): boolean {
    return model.pages.length > 0;
  }
  protected async apply(model: LedgerModel, real: Real): Promise<void> {
    const page = pageAt(model, this.pick, (candidate) => openStates.has(candidate.state));
    assert.ok(page);
    const response = await real.context.request({ method: 'POST', url: `/v1/payout_pages/${page.id}/${this.action}`, apiKey: foreignMerchant(real).apiKey });
    assertResponse(response, { status: 404, errorCode: 'NOT_FOUND' }, this.toString());
    this.outcome('404');
  }
  toString(): string {
    return `foreign-${this.action}(${describePick(this.pick)})`;
  }
}

/** Time passes: KYC decisions, expiries and the rail's outcomes happen (the drain after every command runs the jobs). */
class Advance extends Command {
  readonly name = 'advance';
  constructor(env: Env, private readonly ms: number | 'next-expiry') {
    super(env);
  }
  protected async apply(model: LedgerModel, real: Real): Promise<void> {
    let ms = this.ms === 'next-expiry' ? 0 : this.ms;
    if (this.ms === 'next-expiry') {
      const next = Math.min(...model.pages.filter((page) => page.state === 'CREATED/AWAITING_CUSTOMER').map((page) => page.expiresAt));
      ms = Number.isFinite(next) ? next - model.now : 1;
    }
    real.context.clock.advance(ms);
    model.now += ms;
    await real.drainModelJobs();
    drainInModel(model);
    this.outcome(this.ms === 'next-expiry' ? 'next-expiry' : String(this.ms));
  }
  toString(): string {
    return `advance(${this.ms})`;
  }
}

const foreignMerchants = new WeakMap<TestContext, TestMerchant>();
function foreignMerchant(real: Real): TestMerchant {
  const merchant = foreignMerchants.get(real.context);
  assert.ok(merchant, 'the foreign merchant exists');
  return merchant;
}

function commandArbitrary(env: Env): fc.Arbitrary<ModelCommand> {
  const as = (command: ModelCommand) => command;
  const currency = fc.constantFrom<Currency>('USDC', 'USD');
  const pick = fc.record({ index: fc.nat({ max: 1000 }), targeted: fc.oneof({ weight: 4, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }) });
  const amount = fc.oneof(
    { weight: 6, arbitrary: fc.integer({ min: 1, max: 50_000 }) },
    { weight: 3, arbitrary: fc.integer({ min: 1_000_000, max: 40_000_000 }) },
    { weight: 1, arbitrary: fc.constant<'overdraft'>('overdraft') },
  );
  const lifetime = fc.constantFrom<number | undefined>(60_000, 600_000, 3_600_000, undefined);
  return fc.oneof(
    { weight: 2, arbitrary: fc.tuple(currency, fc.oneof({ weight: 9, arbitrary: fc.integer({ min: 1, max: 5_000_000 }) }, { weight: 1, arbitrary: fc.constant(0) })).map(([c, a]) => as(new Fund(env, c, a))) },
    {
      weight: 6,
      arbitrary: fc
        .tuple(currency, amount, fc.constantFrom<'AUTOMATIC' | 'MANUAL'>('AUTOMATIC', 'MANUAL'), fc.nat({ max: 4 }), lifetime)
        .map(([c, a, r, customer, l]) => as(new Create(env, c, a, r, customer, l))),
    },
    {
      weight: 6,
      arbitrary: fc
        .tuple(pick, fc.constantFrom<DestinationName>('bank', 'rejectedBank', 'wallet', 'deadWallet'), fc.constantFrom<'none' | 'approved' | 'rejected'>('none', 'approved', 'approved', 'rejected'))
        .map(([p, d, k]) => as(new Confirm(env, p, d, k))),
    },
    { weight: 2, arbitrary: fc.tuple(pick, fc.boolean()).map(([p, r]) => as(new SubmitKyc(env, p, r))) },
    { weight: 4, arbitrary: pick.map((p) => as(new PageAction(env, 'release', p))) },
    { weight: 2, arbitrary: pick.map((p) => as(new PageAction(env, 'cancel', p))) },
    { weight: 1, arbitrary: pick.map((p) => as(new PageAction(env, 'decline', p))) },
    { weight: 1, arbitrary: fc.tuple(pick, fc.constantFrom<'cancel' | 'release'>('cancel', 'release')).map(([p, a]) => as(new Foreign(env, p, a))) },
    { weight: 5, arbitrary: fc.constantFrom<number | 'next-expiry'>(0, 500, 1_000, 2_000, 2_000, 60_000, 'next-expiry').map((ms) => as(new Advance(env, ms))) },
  );
}

// ---------------------------------------------------------------- the runner

export interface LedgerModelOptions {
  /** Commands to execute in total (at least; the last fast-check round may run a few more). */
  steps: number;
  /** fast-check seed of the first round (round n uses seed + n). Default: random, printed. */
  seed?: number;
  /** Longest command sequence of one fast-check run (one merchant). */
  maxCommands?: number;
  /** Run the SQL ledger invariants every this many steps (and at the end of every run). */
  invariantsEvery?: number;
  /** Compare `GET /v1/balance` with the model every this many steps (and at the end of every run); the ledger's tables are compared after every step. */
  apiEvery?: number;
  /**
   * Outcomes (`create → 409 INSUFFICIENT_FUNDS`, `final PROCESSED/PAID`, …) the run must reach: after
   * `steps`, rounds go on until each was reached or `maxSteps` (default 4 × steps) ran, so a short run
   * whose random commands missed a corner extends itself instead of proving little.
   */
  requiredOutcomes?: readonly string[];
  maxSteps?: number;
  /** Use this context (its database and clock) instead of creating one. */
  context?: TestContext;
  log?: (line: string) => void;
}

/**
 * Whether a required outcome was reached: `a|b` is either of two, and an alternative ending in `*`
 * is any outcome that starts with it (`release → 409 from PROCESS*`: released twice, whatever the
 * sub-status); anything else is that exact outcome.
 */
export function outcomeReached(outcomes: Readonly<Record<string, number>>, required: string): boolean {
  return required.split('|').some((alternative) =>
    alternative.endsWith('*')
      ? Object.entries(outcomes).some(([outcome, count]) => count > 0 && outcome.startsWith(alternative.slice(0, -1)))
      : (outcomes[alternative] ?? 0) > 0,
  );
}

export interface LedgerModelSummary extends LedgerModelStats {
  seed: number;
  durationMs: number;
  /** Ledger transactions and entries in the database at the end. */
  ledger: { transactions: number; entries: number };
}

function newModel(now: number, balances: Record<Currency, ModelBalance>, customers: number, run: string): LedgerModel {
  return {
    now,
    balances,
    customers: Array.from({ length: customers }, (_, index) => ({ referenceId: `${run}-customer-${index}`, kyc: 'NOT_STARTED' as const })),
    pages: [],
  };
}

/** Ends a run through checked commands: cancel whatever is open, let the rail settle what is processing. */
async function quiesce(env: Env, model: LedgerModel, real: Real): Promise<void> {
  for (const [index, page] of model.pages.entries()) {
    if (openStates.has(page.state)) {
      await new PageAction(env, 'cancel', { index, targeted: false }).run(model, real);
    }
  }
  for (let round = 0; round < 4 && model.pages.some((page) => page.state === 'PROCESSING/SUBMITTED'); round += 1) {
    await new Advance(env, railDelayMs).run(model, real);
  }
  assert.deepEqual(
    model.pages.filter((page) => openStates.has(page.state) || page.state === 'PROCESSING/SUBMITTED').map((page) => page.id),
    [],
    'every page of the run reached a final state',
  );
  for (const currency of currencies) {
    assert.equal(model.balances[currency].reserved, 0, `${currency} reserved is zero once every page is final`);
    assert.equal(model.balances[currency].inFlight, 0, `${currency} in flight is zero once every page is final`);
  }
  const api = await readApiBalances(real);
  for (const currency of currencies) {
    assert.deepEqual(api[currency], { available: model.balances[currency].available, reserved: 0, inFlight: 0 }, `GET /v1/balance ${currency} at the end of the run`);
  }
  // The e-mail and event jobs the run queued (the model's drains leave them) run now, with the
  // real worker: they move no money, and the states and balances must not have moved either.
  await real.context.drainJobs();
  await verify(model, real, env.stats, { api: false, invariants: false });
  await real.checkLedger();
  env.stats.invariantChecks += 1;
}

/**
 * Runs fast-check model runs until `steps` commands were executed. Throws (fast-check's report:
 * seed, path and the shrunk command sequence) on the first divergence.
 */
export async function runLedgerModel(options: LedgerModelOptions): Promise<LedgerModelSummary> {
  const started = Date.now();
  const seed = options.seed ?? Math.floor(Math.random() * 0x7fffffff);
  const maxCommands = options.maxCommands ?? 60;
  const log = options.log ?? (() => undefined);
  const context = options.context ?? (await createTestContext());
  const stats: LedgerModelStats = { steps: 0, runs: 0, commands: {}, outcomes: {}, invariantChecks: 0, comparisons: { state: 0, api: 0 }, cpuMs: {} };
  const env: Env = { stats, invariantsEvery: options.invariantsEvery ?? 250, apiEvery: options.apiEvery ?? 10 };
  log(`ledger model: seed ${seed}, ${options.steps} steps, up to ${maxCommands} commands per run`);
  try {
    foreignMerchants.set(context, await context.createMerchant({ name: 'Model foreign merchant' }));
    // Runs share a merchant (creating one hashes a password: too slow to do hundreds of times):
    // a passing run ends with every page final, so the next starts from the balances it left.
    // After a failed run (fast-check then shrinks) the next run starts on a fresh merchant.
    let merchant = await context.createMerchant({ name: 'Model merchant' });
    // The model's drains run only the jobs that move pages and money (KYC decisions, expiry, rail
    // submission and settlement), through the platform's own job definitions; the e-mail and
    // webhook jobs a run queues are drained by the full worker when the run ends (quiesce).
    const { services } = context.platform;
    const { worker } = createTestWorker({
      database: context.database,
      clock: context.clock,
      definitions: [services.kyc.verifyJob(), services.payoutPages.expireJob(), services.payoutPages.submitJob(), services.payoutPages.settleJob()] as unknown as JobDefinition<never>[],
    });
    const drainModelJobs = () => worker.drain();
    // Checked hundreds of times while the ledger grows: incrementally (the last check, below, is the full one).
    const ledgerWatch = createLedgerWatch(context.database);
    const checkLedger = () => ledgerWatch.check();
    const commands = fc.commands([commandArbitrary(env)], { maxCommands, size: 'max' });
    let averageLength = maxCommands / 2;
    const required = options.requiredOutcomes ?? [];
    const maxSteps = options.maxSteps ?? options.steps * 4;
    const unreached = () => required.filter((outcome) => !outcomeReached(stats.outcomes, outcome));
    for (let round = 0; stats.steps < options.steps || (unreached().length > 0 && stats.steps < maxSteps); round += 1) {
      if (stats.steps >= options.steps) {
        log(`  not reached yet after ${stats.steps} steps: ${unreached().join(', ')}; one more round`);
      }
      const before = stats.steps;
      const runs = Math.max(1, Math.ceil((options.steps - stats.steps) / Math.max(1, averageLength)));
      let runsThisRound = 0;
      await fc.assert(
        fc.asyncProperty(commands, async (sequence) => {
          stats.runs += 1;
          runsThisRound += 1;
          const run = `model-${process.pid}-${seed}-${stats.runs}`;
          const real: Real = { context, drainModelJobs, checkLedger, merchant, prefix: `${run}-page-` };
          const model = newModel(context.clock.now().getTime(), await readAccounts(real), 3, run);
          let passed = false;
          try {
            await fc.asyncModelRun(() => ({ model, real }), sequence);
            await quiesce(env, model, real);
            passed = true;
          } finally {
            // A fresh merchant after a failed run, and once a balance has grown past the largest
            // payout (funding accumulates across runs): then no create could overdraw it any more.
            if (!passed || currencies.some((currency) => model.balances[currency].available >= maxPayoutAmount)) {
              merchant = await context.createMerchant({ name: 'Model merchant' });
            }
          }
          for (const page of model.pages) {
            count(stats.outcomes, `final ${page.state}`);
          }
        }),
        { seed: seed + round, numRuns: runs },
      );
      averageLength = Math.max(1, (stats.steps - before) / Math.max(1, runsThisRound));
      log(`  round ${round} (seed ${seed + round}): ${runsThisRound} runs, ${stats.steps - before} steps, ${stats.steps}/${options.steps}`);
    }
    const ledger = await assertLedgerInvariants(context.database);
    stats.invariantChecks += 1;
    return { ...stats, seed, durationMs: Date.now() - started, ledger };
  } finally {
    if (!options.context) {
      await context.close();
    }
  }
}
