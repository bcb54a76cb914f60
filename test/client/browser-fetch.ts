/**
 * A fetch that behaves like a browser on the API's own origin, for the session tests in Node: it keeps the
 * `sessionid` cookie the API sets (a one-cookie jar) and sends the Origin header a browser adds. `requests`
 * counts what was sent, by path.
 */
export function browserFetch(origin: string) {
  let session: string | undefined;
  const requests: string[] = [];
  const fetch = async (request: Request): Promise<Response> => {
    const headers = new Headers(request.headers);
    headers.set('origin', origin);
    if (session && request.credentials === 'include') headers.set('cookie', `sessionid=${session}`);
    requests.push(`${request.method} ${new URL(request.url).pathname}`);
    const body = request.body ? await request.arrayBuffer() : undefined;
    const response = await globalThis.fetch(request.url, { method: request.method, headers, body });
    const cookie = /(?:^|,\s*)sessionid=([^;]*)/.exec(response.headers.get('set-cookie') ?? '');
    if (cookie) session = cookie[1] || undefined;
    return response;
  };
  return { fetch, requests, session: () => session };
}

/** A fetch that counts requests by `METHOD path`, passing them on. */
export function countingFetch() {
  const requests: string[] = [];
  const fetch = (request: Request): Promise<Response> => {
    requests.push(`${request.method} ${new URL(request.url).pathname}`);
    return globalThis.fetch(request);
  };
  return { fetch, requests, count: (what: string) => requests.filter((line) => line === what).length };
}
