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

/**
 * A structured JSON logger: one line per event, sensitive keys redacted. A child (one per request) costs one object:
 * its fields are redacted and merged with its parent's when it writes its first line, most never do.
 */
export function createLogger(level: Config['logLevel'], base: Record<string, unknown> = {}): Logger {
  return new JsonLogger(order[level], () => base);
}

class JsonLogger implements Logger {
  private merged: Record<string, unknown> | undefined;

  constructor(
    private readonly threshold: number,
    private readonly fields: () => Record<string, unknown>,
  ) {}

  /** The fields of every line: the parent's, then this logger's own (redacted). */
  private base(): Record<string, unknown> {
    this.merged ??= this.fields();
    return this.merged;
  }

  private write(lvl: keyof typeof order, message: string, fields?: Record<string, unknown>): void {
    if (order[lvl] < this.threshold) return;
    const line = JSON.stringify({
      level: lvl,
      time: new Date().toISOString(),
      message,
      ...this.base(),
      ...(fields ? (redact(fields) as Record<string, unknown>) : {}),
    });
    if (order[lvl] >= order.warn) process.stderr.write(`${line}\n`);
    else process.stdout.write(`${line}\n`);
  }

  debug(message: string, fields?: Record<string, unknown>): void {
    this.write('debug', message, fields);
  }

  info(message: string, fields?: Record<string, unknown>): void {
    this.write('info', message, fields);
  }

  warn(message: string, fields?: Record<string, unknown>): void {
    this.write('warn', message, fields);
  }

  error(message: string, fields?: Record<string, unknown>): void {
    this.write('error', message, fields);
  }

  enabled(lvl: 'debug' | 'info' | 'warn' | 'error'): boolean {
    return order[lvl] >= this.threshold;
  }

  child(fields: Record<string, unknown>): Logger {
    // The fields as they are now: the caller may change its object afterwards.
    const own = { ...fields };
    return new JsonLogger(this.threshold, () => ({
      ...this.base(),
      ...(redact(own) as Record<string, unknown>),
    }));
  }
}
