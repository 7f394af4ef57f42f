/**
 * The documentation site: guides rendered from `docs/guides/*.md` and the API reference.
 * Other modules and the app use it through this file only.
 */
export { apiReferencePath, registerDocsRoutes } from './routes.tsx';
