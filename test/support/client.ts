/** A small HTTP client for tests: JSON in, JSON out, optional bearer token and site. */
export interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
  text: string;
}

export interface RequestOptions {
  headers?: Record<string, string>;
  /** Raw body text (sent as is); otherwise `body` is sent as JSON. */
  raw?: string;
}

export class ApiClient {
  constructor(
    readonly baseUrl: string,
    readonly token?: string,
    readonly site?: string,
  ) {}

  withToken(token: string | undefined): ApiClient {
    return new ApiClient(this.baseUrl, token, this.site);
  }

  /** The same client, with requests naming this site (X-Site header). */
  forSite(site: string | undefined): ApiClient {
    return new ApiClient(this.baseUrl, this.token, site);
  }

  /** Signs in with the JWT login endpoint and returns a client carrying the access token. */
  async login(username: string, password: string): Promise<ApiClient> {
    const response = await this.post('/api/auth/jwt/token/', { username, password });
    if (response.status !== 200)
      throw new Error(`login failed for ${username}: ${response.status} ${response.text}`);
    return this.withToken(response.body.access);
  }

  async request<T = any>(
    method: string,
    path: string,
    body?: unknown,
    options: RequestOptions = {},
  ): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...options.headers };
    if (this.token) headers.authorization = `Bearer ${this.token}`;
    if (this.site) headers['x-site'] = this.site;
    let payload: string | undefined = options.raw;
    if (payload === undefined && body !== undefined) {
      payload = JSON.stringify(body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await fetch(`${this.baseUrl}${path}`, { method, headers, body: payload });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: keep the text
    }
    return { status: response.status, body: parsed as T, headers: response.headers, text };
  }

  get<T = any>(path: string, options?: RequestOptions) {
    return this.request<T>('GET', path, undefined, options);
  }
  post<T = any>(path: string, body?: unknown, options?: RequestOptions) {
    return this.request<T>('POST', path, body, options);
  }
  put<T = any>(path: string, body?: unknown, options?: RequestOptions) {
    return this.request<T>('PUT', path, body, options);
  }
  patch<T = any>(path: string, body?: unknown, options?: RequestOptions) {
    return this.request<T>('PATCH', path, body, options);
  }
  delete<T = any>(path: string, body?: unknown, options?: RequestOptions) {
    return this.request<T>('DELETE', path, body, options);
  }
}
