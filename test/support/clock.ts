/**
 * A clock for test platforms: real time, but never the same instant twice (so created_at and updated_at orderings
 * are strict), and it can be moved ahead (expiries).
 */
export function strictClock(): { clock: () => Date; advance: (ms: number) => void } {
  let offset = 0;
  let last = 0;
  return {
    clock: () => {
      last = Math.max(Date.now() + offset, last + 1);
      return new Date(last);
    },
    advance: (ms) => {
      offset += ms;
    },
  };
}
