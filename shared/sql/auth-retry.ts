import type postgres from 'postgres';

type Sql = postgres.Sql;

/**
 * One retry after an authentication failure: when the database login's password rotates, a container still holds
 * the old one (cached for a few minutes, shared/adapters/aws/database-password.ts) and RDS Proxy refuses the next
 * new connection. The query that met the refusal never ran (authentication comes before any statement), so it is
 * safe to refresh the secret and send it once more; a second refusal is a real one and reaches the caller.
 */

/** PostgreSQL's invalid_password and invalid_authorization_specification. */
const authenticationFailures = new Set(['28P01', '28000']);

export function isAuthenticationFailure(error: unknown): boolean {
  return (
    typeof error === 'object' &&
    error !== null &&
    authenticationFailures.has(String((error as { code?: unknown }).code))
  );
}

type Thenable = PromiseLike<unknown> & object;

/** Wraps a (lazy) query: awaiting it runs it, and after an authentication failure, refreshes and runs a new one. */
function retryingQuery(make: () => Thenable, refresh: () => Promise<void>): Thenable {
  const query = make();
  const then = query.then;
  let settled: Promise<unknown> | undefined;
  const settle = () => {
    settled ??= new Promise((resolve, reject) => {
      then.call(query, resolve, (error: unknown) => {
        if (!isAuthenticationFailure(error)) return reject(error);
        refresh().then(() => make().then(resolve, reject), reject);
      });
    });
    return settled;
  };
  // Only awaiting changes: a query passed into another as a fragment is read by the driver as it is.
  Object.defineProperties(query, {
    // biome-ignore lint/suspicious/noThenProperty: the query is a thenable on purpose (the driver's own queries are).
    then: {
      value: (ok?: (v: unknown) => unknown, fail?: (e: unknown) => unknown) => settle().then(ok, fail),
    },
    catch: { value: (fail?: (e: unknown) => unknown) => settle().catch(fail) },
    finally: { value: (done?: () => void) => settle().finally(done) },
  });
  return query;
}

/** The client with tagged-template queries, `unsafe` and `begin` retried once after an authentication failure. */
export function retryAuthentication(sql: Sql, refresh: () => Promise<void>): Sql {
  const call = sql as unknown as (...args: unknown[]) => Thenable;
  const target = sql as unknown as {
    unsafe: (...args: unknown[]) => Thenable;
    begin: (...args: unknown[]) => Thenable;
  };
  return new Proxy(sql, {
    apply(fn, thisArg, args: unknown[]) {
      const tagged = Array.isArray(args[0]) && 'raw' in (args[0] as object);
      // sql(identifier), sql(values): helpers, not queries.
      if (!tagged) return Reflect.apply(fn, thisArg, args);
      return retryingQuery(() => call(...args), refresh);
    },
    get(fn, key, receiver) {
      if (key === 'unsafe')
        return (...args: unknown[]) => retryingQuery(() => target.unsafe(...args), refresh);
      if (key === 'begin')
        return (...args: unknown[]) =>
          Promise.resolve(target.begin(...args)).catch(async (error: unknown) => {
            // The transaction's callback never ran: the connection was refused before BEGIN.
            if (!isAuthenticationFailure(error)) throw error;
            await refresh();
            return target.begin(...args);
          });
      return Reflect.get(fn, key, receiver);
    },
  });
}
