/** `@tenantbase/client/refine`: refine's data provider and auth provider over the typed client. */
export * from './refine/providers.js';
