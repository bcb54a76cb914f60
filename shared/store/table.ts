/**
 * The single DynamoDB table of the control plane: its keys and indexes are declared here once, for the CDK stack
 * and for the local runtime that creates the same table in the embedded DynamoDB.
 */
export const tableKeys = { partition: 'PK', sort: 'SK' } as const;

/** GSI1: the inverse side of relations (a user's organizations, a user's site permissions, lists by kind). */
export const indexes = [{ name: 'GSI1', partition: 'GSI1PK', sort: 'GSI1SK' }] as const;

/** Items with this attribute (epoch seconds) expire on their own: login state, rate-limit windows. */
export const ttlAttribute = 'expires_at_epoch';
