export * from './platform.ts';
export * from './merchants.ts';
export * from './customers.ts';
