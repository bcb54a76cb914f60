import type { Transport } from '../core/transport.js';
import type { AnyRecord } from './filters.js';
import { Table } from './table.js';

const tablesTemplate = '/api/apps/{app_slug}/datatables/';

export interface TableDefinition {
  name: string;
  description?: string;
  schema: Record<string, unknown>;
}

/**
 * The data tables of one app. `DB` names the record type of each table (`npm run client -- types --app <slug>`
 * writes it): `table('books')` is then typed without a type argument.
 */
export class Tables<DB extends object = Record<string, AnyRecord>> {
  constructor(
    readonly client: Transport,
    readonly app: string,
  ) {}

  get path(): string {
    return `/api/apps/${encodeURIComponent(this.app)}/datatables/`;
  }

  /** Records of one table: of `DB`'s type for the table, or of `T` (default: any fields). */
  table<K extends keyof DB & string>(name: K): Table<DB[K] & object>;
  table<T extends object = AnyRecord>(name: string): Table<T>;
  table(name: string): Table<object> {
    return new Table(this.client, this.app, name);
  }

  async create(definition: TableDefinition): Promise<AnyRecord> {
    return (
      await this.client.request<{ data: AnyRecord }>('POST', this.path, {
        body: definition,
        template: tablesTemplate,
      })
    ).data;
  }

  async list(): Promise<AnyRecord[]> {
    return (await this.client.request<{ data: AnyRecord[] }>('GET', this.path, { template: tablesTemplate }))
      .data;
  }

  async drop(name: string): Promise<void> {
    await this.client.request('DELETE', `${this.path}${encodeURIComponent(name)}/`, {
      template: `${tablesTemplate}{name}/`,
    });
  }
}
