/** The hosted payout page's views, one module per step family (see each file). */
export * from './components.tsx';
export * from './verify-view.tsx';
export * from './form-views.tsx';
export * from './status-views.tsx';
