import type { Config } from './config';

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
  /** Whether a line of this level is written (optional: a logger without it writes every level). */
  enabled?(level: 'debug' | 'info' | 'warn' | 'error'): boolean;
  /** A logger whose every line also carries `fields` (the request id, for one request's lines). */
  child(fields: Record<string, unknown>): Logger;
}

const order = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 } as const;

/** Keys whose values never reach a log line, at any depth. */
const sensitive = /pass(word)?|secret|token|authorization|cookie|private|credential|^value$|^key_material$/i;

/** Replaces the values of sensitive keys, so that log lines never carry secrets. */
export function redact(value: unknown, depth = 0): unknown {
  if (depth > 6 || value === null || typeof value !== 'object') return value;
  if (value instanceof Error) return { name: value.name, message: value.message };
  if (Array.isArray(value)) return value.map((item) => redact(item, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    out[key] = sensitive.test(key) ? '[redacted]' : redact(item, depth + 1);
  }
  return out;
}

/** A structured JSON logger: one line per event, sensitive keys redacted. */
export function createLogger(level: Config['logLevel'], base: Record<string, unknown> = {}): Logger {
  const threshold = order[level];
  const write = (lvl: keyof typeof order, message: string, fields?: Record<string, unknown>) => {
    if (order[lvl] < threshold) return;
    const line = JSON.stringify({
      level: lvl,
      time: new Date().toISOString(),
      message,
      ...base,
      ...(fields ? (redact(fields) as Record<string, unknown>) : {}),
    });
    if (order[lvl] >= order.warn) process.stderr.write(`${line}\n`);
    else process.stdout.write(`${line}\n`);
  };
  return {
    debug: (m, f) => write('debug', m, f),
    info: (m, f) => write('info', m, f),
    warn: (m, f) => write('warn', m, f),
    error: (m, f) => write('error', m, f),
    enabled: (lvl) => order[lvl] >= threshold,
    child: (fields) => createLogger(level, { ...base, ...(redact(fields) as Record<string, unknown>) }),
  };
}
