import type { ApiClient } from './client';

/** Paths and set-up of the data tables API (docs/data-tables.md), for the data-* test files. */
export function tablesPath(app: string): string {
  return `/api/apps/${app}/datatables/`;
}

export function tablePath(app: string, table: string): string {
  return `${tablesPath(app)}${table}/`;
}

export function dataPath(app: string, table: string): string {
  return `${tablePath(app, table)}data/`;
}

/** Creates a data table and returns its view; throws unless the API answers 201. */
export async function createTable(
  api: ApiClient,
  app: string,
  name: string,
  schema: Record<string, unknown>,
): Promise<any> {
  const response = await api.post(tablesPath(app), { name, schema });
  if (response.status !== 201) throw new Error(`createTable ${name}: ${response.status} ${response.text}`);
  return response.body.data;
}

/** Creates records (one object or an array) and returns them; throws unless the API answers 201. */
export async function insert(api: ApiClient, app: string, table: string, body: unknown): Promise<any> {
  const response = await api.post(dataPath(app, table), body);
  if (response.status !== 201) throw new Error(`insert into ${table}: ${response.status} ${response.text}`);
  return response.body.data;
}
