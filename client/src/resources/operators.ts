import { type operandKinds, operators } from '../generated/operators.generated.js';

/**
 * The server's filter operator table, as `npm run client` generates it from the server's one table
 * (client/src/generated/operators.generated.ts; a test fails when it is stale): which operators apply to a field.
 */
export type Operator = keyof typeof operators;
export type OperandKind = (typeof operandKinds)[number];

/** Every operator name, in the server table's order. */
export const operatorNames = Object.keys(operators) as Operator[];

/** Whether an operator applies to an operand kind. */
export function appliesTo(operator: Operator, kind: OperandKind): boolean {
  return (operators[operator].appliesTo as readonly OperandKind[]).includes(kind);
}
