import type { Logger } from '../../shared/log';

/** One captured log line. */
export interface LogLine {
  level: string;
  message: string;
  fields: Record<string, unknown>;
}

interface Waiter {
  matches: (line: LogLine) => boolean;
  count: number;
  resolve: (lines: LogLine[]) => void;
}

/**
 * A logger that keeps every line in memory (children included), for tests that assert what was logged; `until`
 * waits for lines logged later (by work the request left running) as an event, not by polling a clock.
 */
export function captureLog(): {
  log: Logger;
  lines: LogLine[];
  until: (matches: (line: LogLine) => boolean, count?: number) => Promise<LogLine[]>;
} {
  const lines: LogLine[] = [];
  let waiters: Waiter[] = [];
  const settle = () => {
    waiters = waiters.filter((waiter) => {
      const found = lines.filter(waiter.matches);
      if (found.length < waiter.count) return true;
      waiter.resolve(found);
      return false;
    });
  };
  const make = (base: Record<string, unknown>): Logger => {
    const write =
      (level: string) =>
      (message: string, fields: Record<string, unknown> = {}) => {
        lines.push({ level, message, fields: { ...base, ...fields } });
        if (waiters.length > 0) settle();
      };
    return {
      debug: write('debug'),
      info: write('info'),
      warn: write('warn'),
      error: write('error'),
      child: (fields) => make({ ...base, ...fields }),
    };
  };
  /** The matching lines once there are `count` of them (those already logged count too). */
  const until = (matches: (line: LogLine) => boolean, count = 1) =>
    new Promise<LogLine[]>((resolve) => {
      waiters.push({ matches, count, resolve });
      settle();
    });
  return { log: make({}), lines, until };
}
