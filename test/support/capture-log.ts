import type { Logger } from '../../shared/log';

/** One captured log line. */
export interface LogLine {
  level: string;
  message: string;
  fields: Record<string, unknown>;
}

/** A logger that keeps every line in memory (children included), for tests that assert what was logged. */
export function captureLog(): { log: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const make = (base: Record<string, unknown>): Logger => {
    const write =
      (level: string) =>
      (message: string, fields: Record<string, unknown> = {}) => {
        lines.push({ level, message, fields: { ...base, ...fields } });
      };
    return {
      debug: write('debug'),
      info: write('info'),
      warn: write('warn'),
      error: write('error'),
      child: (fields) => make({ ...base, ...fields }),
    };
  };
  return { log: make({}), lines };
}
