import { createRequire } from 'node:module';
import type * as CircleWallets from '@circle-fin/developer-controlled-wallets';
import type * as Onfido from '@onfido/api';
import type * as IncreasePackage from 'increase';
import type Stripe from 'stripe';

/**
 * The providers' official packages, loaded when an adapter builds its client rather than when the
 * server starts. They are large (Stripe's alone is hundreds of files, about as long to load as the
 * rest of the server), and a server without live providers configured — the embedded default, a
 * sandbox-only install, every test process that does not test an adapter — never needs them.
 * Types come from the packages as usual (`import type`); only the values wait.
 *
 * Synchronous (`require` of each package's CommonJS build, which every one of them ships), so the
 * adapters' factories stay synchronous. A package is loaded once; later calls get Node's cached copy.
 */
const requirePackage = createRequire(import.meta.url);

export interface ProviderPackages {
  stripe: typeof Stripe;
  '@onfido/api': typeof Onfido;
  increase: typeof IncreasePackage;
  '@circle-fin/developer-controlled-wallets': typeof CircleWallets;
}

export function loadProviderPackage<Name extends keyof ProviderPackages>(name: Name): ProviderPackages[Name] {
  return requirePackage(name) as ProviderPackages[Name];
}
