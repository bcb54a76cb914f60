/**
 * Bounds of the integers clients send (docs/security.md, "Numbers"): every integer of every route schema has a
 * maximum and a minimum (test/unit/schema-integers.test.ts walks the route table). Above 2^53 an integer is not
 * exact in JavaScript, and the DynamoDB marshaller refuses it (a 500 before these bounds); a count that becomes SQL
 * stays within PostgreSQL's `integer`.
 */

/** 2^53 - 1, the largest integer a JSON number holds exactly (`Number.MAX_SAFE_INTEGER`). */
export const maxSafeInteger = 9_007_199_254_740_991;

/** 2^31 - 1, PostgreSQL's `integer`: lengths and counts that become SQL. */
export const maxInt32 = 2_147_483_647;

/** The id of a stored object (a user, an organization, an invitation): a positive safe integer. */
export const idSchema = { type: 'integer', minimum: 1, maximum: maxSafeInteger } as const;

/** The highest page number of a list (records' too: shared/data/query/paging.ts); beyond it, a 400 naming `page`. */
export const maxPageNumber = 1_000_000;

/** The `page` query parameter of a paged list. */
export const pageSchema = { type: 'integer', minimum: 1, maximum: maxPageNumber, default: 1 } as const;
