import assert from 'node:assert/strict';
import fc from 'fast-check';
import { AppError } from '../../src/http/errors.ts';
import { maxPayoutAmount } from '../../src/modules/payout-pages/schemas.ts';
import { json, type TestContext, type TestMerchant } from '../helpers/context.ts';
import { bankMethod, deadWalletMethod, fullKyc, rejectedBankMethod, walletMethod } from '../helpers/payout-pages.ts';
import { confirmInModel, drainInModel, finish, move, openStates, submit, submitKycInModel, type Currency, type LedgerModel, type ModelPage, type PageState, type Real } from './ledger-model-rules.ts';
import { count, verify, type LedgerModelStats } from './ledger-model-verify.ts';

// The ledger model check's commands (ledger-model.ts): each acts on the real platform through its API
// and on the model (ledger-model-rules.ts), then both are compared (ledger-model-verify.ts).


export interface Env {
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

export class PageAction extends Command {
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
export class Advance extends Command {
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

export const foreignMerchants = new WeakMap<TestContext, TestMerchant>();
function foreignMerchant(real: Real): TestMerchant {
  const merchant = foreignMerchants.get(real.context);
  assert.ok(merchant, 'the foreign merchant exists');
  return merchant;
}

export function commandArbitrary(env: Env): fc.Arbitrary<ModelCommand> {
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

