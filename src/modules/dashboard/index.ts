/**
 * The merchant dashboard (server-rendered pages). Its read models in `presenters/` are the one declared
 * reader of other modules' tables (docs/ARCHITECTURE.md, 'Module boundaries').
 * Other modules and the app use it through this file only.
 */
export { registerDashboard } from './routes.tsx';
