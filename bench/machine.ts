import { cpus, totalmem } from 'node:os';

/** The machine a bench ran on, as the report shows it. */
export interface Machine {
  readonly cpu: string;
  readonly cores: number;
  readonly memoryGb: number;
  readonly node: string;
  readonly postgres: string;
  readonly platform: string;
}

/** Describes this machine; `postgres` is the server version the bench measured against. */
export function describeMachine(postgres: string): Machine {
  const list = cpus();
  return {
    cpu: list[0]?.model.trim() ?? 'unknown',
    cores: list.length,
    memoryGb: Math.round((totalmem() / 1024 ** 3) * 10) / 10,
    node: process.version,
    postgres,
    platform: `${process.platform} ${process.arch}`,
  };
}
