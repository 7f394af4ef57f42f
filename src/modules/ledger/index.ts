/**
 * The double-entry ledger: balances per merchant, mode and currency, postings in one statement.
 * Other modules and the app use it through this file only.
 */
export { disputeDebit, type DisputeMovement, disputeReturn } from './disputes.ts';
export { checkLedger, type LedgerCheck } from './invariants.ts';
export { postedUnder } from './posted.ts';
export { fundingCurrencies, type FundingCurrency, isLedgerCurrency, type LedgerCurrency, maxPostingAmount } from './postings.ts';
export { registerLedgerAdminRoutes, registerLedgerRoutes } from './routes.ts';
export { type Balance, BalanceLimitError, createLedgerService, InsufficientFundsError, type LedgerService } from './service.ts';
export type { AtomicBatchRow } from './atomic-batch.ts';
export type { AtomicPostResult } from './atomic-post.ts';
