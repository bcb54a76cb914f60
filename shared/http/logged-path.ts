import { subjectHash } from '../limits/failures';

/**
 * Paths that carry a credential: the public invitation endpoints and the invitation page (`/invitations/{token}`),
 * whose `{token}` is the only credential of its holder. Request log lines show a hash in its place, the same hash the invitation failure log uses.
 */
const credentialInPath = /^(\/api\/cloud\/invitations\/|\/invitations\/)([^/]+)/i;

/** The request path as a log line may show it: credentials replaced by `hash:<hash>`. */
export function loggedPath(path: string | undefined): string | undefined {
  if (path === undefined) return undefined;
  return path.replace(
    credentialInPath,
    (_, prefix: string, token: string) => `${prefix}hash:${subjectHash(token.toLowerCase())}`,
  );
}
