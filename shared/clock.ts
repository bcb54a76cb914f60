/** The source of the current time; tests pass a fixed one. */
export type Clock = () => Date;

export const systemClock: Clock = () => new Date();

/** ISO 8601 in UTC with a `Z`. */
export function iso(date: Date): string {
  return date.toISOString();
}
