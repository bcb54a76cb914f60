/** The product's one name, as the hosted pages show it (functions/pages/html.ts; test/unit/product-name.test.ts). */
export const productName = 'Tenantbase';
