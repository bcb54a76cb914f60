import { useRef, useState } from 'react';

/**
 * Long work in batches (an import, a bulk delete): one request at a time, a progress bar, and a Cancel that stops
 * after the batch in flight (a request already sent is never abandoned half-way: its answer says what landed).
 */

export interface BatchFailure {
  /** 0-based position of the batch's first item. */
  start: number;
  /** Items in the refused batch. */
  size: number;
  error: unknown;
}

export interface BatchState {
  running: boolean;
  /** Items done (landed) so far. */
  done: number;
  total: number;
  /** Set when the run ended: all done, cancelled, or refused. */
  outcome?: 'finished' | 'cancelled' | 'failed';
  failure?: BatchFailure;
}

/** Runs `send` over `items` in batches of `size`, one at a time; `send` answers how many of its batch landed. */
export function useBatches() {
  const [state, setState] = useState<BatchState>({ running: false, done: 0, total: 0 });
  const cancelled = useRef(false);
  async function run<T>(
    items: readonly T[],
    size: number,
    send: (batch: T[], start: number) => Promise<number>,
  ): Promise<BatchState> {
    cancelled.current = false;
    let done = 0;
    let current: BatchState = { running: true, done, total: items.length };
    setState(current);
    for (let start = 0; start < items.length; start += size) {
      if (cancelled.current) {
        current = { running: false, done, total: items.length, outcome: 'cancelled' };
        setState(current);
        return current;
      }
      const batch = items.slice(start, start + size);
      try {
        done += await send(batch, start);
      } catch (error) {
        current = {
          running: false,
          done,
          total: items.length,
          outcome: 'failed',
          failure: { start, size: batch.length, error },
        };
        setState(current);
        return current;
      }
      current = { running: true, done, total: items.length };
      setState(current);
    }
    current = {
      running: false,
      done,
      total: items.length,
      outcome: cancelled.current && done < items.length ? 'cancelled' : 'finished',
    };
    setState(current);
    return current;
  }
  return {
    state,
    run,
    cancel: () => {
      cancelled.current = true;
    },
    reset: () => setState({ running: false, done: 0, total: 0 }),
  };
}

/** A labelled progress bar (a native `<progress>`: no style attribute, which the console's policy forbids). */
export function ProgressBar({ label, state }: { label: string; state: BatchState }) {
  if (state.total === 0) return null;
  return (
    <div className="progress">
      <progress aria-label={label} max={state.total} value={state.done} />
    </div>
  );
}
