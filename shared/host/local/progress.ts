/** Reports the slow steps of a local start (initdb of PGlite takes seconds), so a first start does not look hung. */
export interface StartProgress {
  step<T>(label: string, run: () => Promise<T>): Promise<T>;
}

/** Runs the steps without a word (tests). */
export const quietProgress: StartProgress = { step: (_label, run) => run() };

/** One line per step on a stream: `initialising embedded PostgreSQL… done in 9.8 s`. */
export function streamProgress(
  write: (text: string) => void,
  now: () => number = () => performance.now(),
): StartProgress {
  return {
    async step(label, run) {
      write(`${label}… `);
      const started = now();
      try {
        const result = await run();
        write(`done in ${((now() - started) / 1000).toFixed(1)} s\n`);
        return result;
      } catch (error) {
        write('failed\n');
        throw error;
      }
    },
  };
}
