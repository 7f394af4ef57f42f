/**
 * A customer's data rights: the export of everything held about them and the erasure across modules.
 * Other modules and the app use it through this file only.
 */
export { createCustomerExport, type CustomerExportService } from './export.ts';
export { registerDataRightsRoutes } from './routes.ts';
export { createErasureService, type ErasureService } from './service.ts';
