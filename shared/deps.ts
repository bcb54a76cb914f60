import type { UserCreationEvents } from './accounts/user-creation-events';
import type { TokenService } from './auth/tokens';
import type { Clock } from './clock';
import type { Config } from './config';
import type { Keys } from './keys/keys';
import type { DeletionHandOff } from './lifecycle/hand-off';
import type { Logger } from './log';
import type { Mailer } from './mail/mailer';
import type { ValueCache } from './secrets/value-cache';
import type { Sql } from './sql/client';
import type { Store } from './store/store';
import type { AccessCache } from './tenancy/access-cache';

/**
 * The ports: everything services need, built once per container (cold start) and passed explicitly. This module
 * names types only and imports no adapter; the adapters are chosen in shared/compose/.
 */
export interface Deps {
  readonly config: Config;
  readonly log: Logger;
  readonly clock: Clock;
  /** Control plane (DynamoDB). */
  readonly store: Store;
  /** Data plane (PostgreSQL); the connection opens on first use. */
  readonly sql: () => Sql;
  /**
   * Whether this process has a data plane (`sql` composed). Without it, deletions hand their SQL steps to the
   * deletion sweeper (shared/lifecycle/budget.ts, `hasSql`).
   */
  readonly hasSql: boolean;
  readonly tokens: TokenService;
  /** Who and where of recent requests (shared/tenancy/access-cache.ts). */
  readonly accessCache: AccessCache;
  /** PRE/POST_USER_CREATE around the one user-creation service (shared/accounts/user-creation-events.ts). */
  readonly events: UserCreationEvents;
  /** Data keys of the secret store's envelope encryption (shared/keys/keys.ts). */
  readonly keys: Keys;
  /** Decrypted secret values checked against their revision (shared/secrets/value-cache.ts). */
  readonly secretCache: ValueCache;
  /** Outgoing e-mail: SES or the local outbox (shared/mail). */
  readonly mailer: Mailer;
  /** Who finishes a deletion that answered 202 with no further request (shared/lifecycle/hand-off.ts). */
  readonly deletions: DeletionHandOff;
}
