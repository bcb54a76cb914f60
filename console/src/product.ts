/** The product's one name, as the hosted pages show it (pages/html.ts; test/unit/product-name.test.ts). */
export const productName = 'Tenantbase';
