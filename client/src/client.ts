import { type ClientOptions, createTransport, type Transport } from './core/transport.js';
import type { AnyRecord } from './resources/filters.js';
import { Tables } from './resources/tables.js';

/** The typed client: the transport (typed calls by path, `request`) and the data tables of each app. */
export interface Client extends Transport {
  /**
   * The data tables of an app: `api.app('storefront').table('books')`. `DB` is the app's table types, as
   * `npm run client -- types --app storefront` writes them.
   */
  app<DB extends object = Record<string, AnyRecord>>(slug: string): Tables<DB>;
}

export function createClient(options: ClientOptions): Client {
  const transport = createTransport(options);
  return { ...transport, app: (slug) => new Tables(transport, slug) };
}
