import { describe, expect, it } from 'vitest';
import { benchHeaders, fakeRequest } from '../../bench/pipeline';
import { toEvent } from '../../shared/host/local/http-server';

describe('bench:steps pipeline requests', () => {
  it("make the event the local server would make of the bench's request", () => {
    const headers = benchHeaders({ token: 'tok', site: 'shop' }, true);
    const event = toEvent(
      fakeRequest('POST', '/api/apps/a/datatables/items/data/?x=1', headers),
      Buffer.from('{"title":"t"}'),
    );
    expect(event.requestContext.http.method).toBe('POST');
    expect(event.rawPath).toBe('/api/apps/a/datatables/items/data/');
    expect(event.rawQueryString).toBe('x=1');
    expect(event.headers).toMatchObject({
      authorization: 'Bearer tok',
      'x-site': 'shop',
      'content-type': 'application/json',
    });
    expect(event.body).toBe('{"title":"t"}');
    expect(event.isBase64Encoded).toBe(false);
  });

  it('send no content type on a read', () => {
    expect(benchHeaders({ token: 'tok', site: 'shop' }, false)).not.toHaveProperty('content-type');
  });
});
