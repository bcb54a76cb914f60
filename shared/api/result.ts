/** What an operation answers: a status, a JSON body (or a raw one) and headers. */
export interface HttpResult {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** A body that is not JSON (HTML, CSS, JavaScript, images), sent as is with its content type. */
  raw?: { contentType: string; body: string | Buffer };
}

export const ok = (body: unknown, status = 200): HttpResult => ({ status, body });
export const created = (body: unknown): HttpResult => ({ status: 201, body });
export const noContent = (): HttpResult => ({ status: 204 });
