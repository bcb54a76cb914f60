import type { BatchGetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { keys } from '../../shared/accounts/keys';
import type { Store } from '../../shared/store/store';
import { loadRequest, type RequestTarget } from '../../shared/tenancy/principal';

/**
 * The first requests for a site in a container (shared/tenancy/principal.ts): the site's organization is not known
 * yet, so the owner's membership is read in a second round trip. Requests that started before another one learnt
 * the mapping did not read the membership with the site, and must still read it: found in the console, where a
 * new site's first requests run side by side and some answered the organization's owner 403.
 */

const table = 'platform';

/** An in-memory store answering BatchGetItem; `hold` keeps the next read waiting until released. */
function memoryStore(items: Record<string, unknown>[]) {
  let held: { release: () => void; reached: Promise<void> } | undefined;
  const store = {
    table,
    doc: {
      send: async (command: BatchGetCommand) => {
        const gate = held;
        held = undefined;
        if (gate) await gate.reached;
        const wanted = command.input.RequestItems?.[table]?.Keys ?? [];
        const found = items.filter((item) => wanted.some((key) => key.PK === item.PK && key.SK === item.SK));
        return { Responses: { [table]: found } };
      },
    },
  } as unknown as Store;
  const hold = () => {
    let release = () => {};
    const reached = new Promise<void>((resolve) => {
      release = resolve;
    });
    held = { release, reached };
    return release;
  };
  return { store, hold };
}

describe('loadRequest on a site its container has not seen', () => {
  it("gives the organization's owner their role even when another first request learnt the site's organization meanwhile", async () => {
    const slug = `fresh-${Math.random().toString(16).slice(2, 10)}`;
    const owner = { id: 7, username: 'owner', email: 'owner@example.com', is_active: true, token_version: 0 };
    const { store, hold } = memoryStore([
      { ...keys.user(owner.id), ...owner },
      { ...keys.site(slug), slug, name: 'Fresh', organization_slug: 'acme', id: 1 },
      { ...keys.member('acme', owner.id), organization_slug: 'acme', user_id: owner.id, role: 'owner' },
    ]);
    const target: RequestTarget = { userId: owner.id, site: slug, organization: null, app: null };

    // The second request's first read waits; the first request runs to its end and learns the mapping.
    const release = hold();
    const second = loadRequest(store, target);
    const first = await loadRequest(store, target);
    release();

    expect(first.principal.site?.organizationRole).toBe('owner');
    expect((await second).principal.site?.organizationRole).toBe('owner');
  });
});
