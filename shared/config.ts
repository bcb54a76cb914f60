import { defaultCorsOrigins, parseCorsOrigins } from './cors';

/**
 * Typed configuration, read once from the environment. This is the only module that reads `process.env`.
 */
export type Runtime = 'local' | 'aws';

export interface Config {
  readonly runtime: Runtime;
  /** Local HTTP server. */
  readonly port: number;
  readonly host: string;
  /** Where the local adapters keep their data (DynamoDB file, PGlite, keys, outbox). */
  readonly dataDir: string;
  /** Bootstrap superuser; generated when absent. */
  readonly adminEmail: string | undefined;
  readonly adminPassword: string | undefined;
  /** Any PostgreSQL; when absent locally, embedded PGlite is used. */
  readonly databaseUrl: string | undefined;
  /**
   * The cloud's database: RDS Proxy endpoint, user, and the Secrets Manager secret that holds the password (used
   * when DATABASE_URL is absent).
   */
  readonly databaseEndpoint: DatabaseEndpoint | undefined;
  /** Connections per container; 1 against the embedded PGlite, which serves one connection at a time. */
  readonly databasePoolSize: number;
  /**
   * DATABASE_URL names a transaction-pooling proxy (DATABASE_PROXY=true: PgBouncer in transaction mode, say): the
   * clients then behave as the Lambdas do behind RDS Proxy, no named prepared statements and nothing in the startup
   * message but what a proxy accepts (docs/deploying.md, "What pins an RDS Proxy session"). The cloud's endpoint
   * (DATABASE_HOST) is always a proxy.
   */
  readonly databaseProxy: boolean;
  /**
   * Named prepared statements on DATABASE_URL connections (default true: each statement is parsed and planned once
   * per connection); never behind a proxy (DATABASE_PROXY=true, or the cloud's RDS Proxy endpoint), where they would
   * pin each client to one database connection, or break on a pooler that does not track them.
   */
  readonly databasePrepare: boolean;
  /** How long a container may reuse who and where of a request (seconds; 0: read on every request). */
  readonly accessCacheSeconds: number;
  /** Requests per second one API key may make through one container (its own throttle; docs/security.md). */
  readonly apiKeyRequestsPerSecond: number;
  /**
   * PostgreSQL's statement_timeout of data-plane sessions, in milliseconds (0: none), made the connecting role's
   * default in the database by the local start on DATABASE_URL (shared/sql/session-defaults.ts); in the cloud the
   * deploy-time step sets it from its own environment. docs/security.md.
   */
  readonly databaseStatementTimeoutMs: number;
  /**
   * How long the local server, asked to stop (SIGINT, SIGTERM), lets the requests in flight finish before it cuts
   * their connections (SHUTDOWN_DEADLINE_SECONDS, default 10, 0 to 3600; docs/local-runtime.md).
   */
  readonly shutdownDeadlineSeconds: number;
  /**
   * The local server's deadlines for receiving a request (docs/local-runtime.md, "Request deadlines"): the head
   * within `headersMs` (REQUEST_HEADERS_TIMEOUT_MS, default 10 000), the whole request, body included, within
   * `requestMs` (REQUEST_TIMEOUT_MS, default 30 000, API Gateway's integration timeout); then 408 and the
   * connection closed. The head's is at most the request's.
   */
  readonly requestTimeouts: RequestTimeouts;
  /**
   * Steps of cleanup (a data table dropped, a secret, function, role, membership or permission removed) one deletion
   * request, or one start, may do before it answers (DELETION_STEPS_PER_REQUEST, default 500, at least 1); what is
   * left waits in the deletion's tombstone (docs/lifecycle.md).
   */
  readonly deletionStepsPerRequest: number;
  /**
   * Who finishes a deletion that answered 202 with no further request (docs/lifecycle.md, "Finished in the
   * background"). Locally: the server itself, in the background (DELETIONS_IN_BACKGROUND, default true; false
   * leaves it to the scope's next request and the next start). In the cloud: the deletion sweeper function
   * (DELETION_SWEEPER_FUNCTION, set by the stack), invoked asynchronously.
   */
  readonly deletions: { inBackground: boolean; sweeperFunction: string | undefined };
  /** Any DynamoDB endpoint; when absent locally, the embedded DynamoDB is started. */
  readonly dynamodbEndpoint: string | undefined;
  readonly tableName: string;
  readonly region: string;
  /** Site used when a request names none (single-tenant installs). */
  readonly defaultSite: string | undefined;
  /** Sites are resolved from `{site}.{baseDomain}` hosts when set. */
  readonly baseDomain: string | undefined;
  /** JWT issuer (`iss`) and audience (`aud`). */
  readonly jwtIssuer: string;
  readonly jwtAudience: string;
  readonly accessTokenSeconds: number;
  readonly refreshTokenSeconds: number;
  /** Lifetime of a browser session (`sessionid` cookie), from its sign-in; no sliding renewal. */
  readonly sessionSeconds: number;
  /**
   * The key that signs JWTs: a KMS asymmetric key (ECC_NIST_P256) in the cloud; locally `local:<name>` (the key
   * file `keys/jwt-<name>.pem`, created on first use), or absent for the default local key `local:signing-key`.
   */
  readonly jwtSigningKeyId: string | undefined;
  /**
   * Keys that verify JWTs and are published in the JWKS besides the signing key (JWT_VERIFICATION_KEY_IDS, comma
   * separated): during a rotation, the next key before it signs and the previous one until its tokens expire.
   */
  readonly jwtVerificationKeyIds: readonly string[];
  /** KMS symmetric key of the secret store's envelope encryption; locally a master key file is used instead. */
  readonly secretsKeyId: string | undefined;
  readonly logLevel: 'debug' | 'info' | 'warn' | 'error' | 'silent';
  /** Origins whose browser apps may call the API (`*`: any); the local server applies it, the stack mirrors it. */
  readonly corsOrigins: readonly string[];
  /** The hosted pages' settings. */
  readonly pages: PagesConfig;
  /** Sign-in throttling (shared/limits, shared/auth/login.ts). */
  readonly loginLimits: LoginLimits;
  /** Outgoing mail (shared/mail) and the links it carries. */
  readonly mail: MailConfig;
  /** Failed attempts on the public invitation endpoints (functions/invitations/limits.ts). */
  readonly invitationLimits: InvitationLimits;
  /** How long an invitation's link works after it was sent (create or resend); later it answers 410. */
  readonly invitationTtlSeconds: number;
  /** Forgotten passwords: the reset link e-mailed to the address (shared/recovery/password-reset.ts). */
  readonly passwordReset: PasswordResetConfig;
  /** Self sign-up and the link that confirms an address (shared/recovery/sign-up.ts). */
  readonly signUp: SignUpConfig;
  /** The deepest graph traversal a request may ask for (`depth`); deeper requests are refused. */
  readonly graphMaxDepth: number;
  /**
   * The most records one graph traversal may visit (each once per starting record and type), and the most edges a
   * tree or graph answer may hold; beyond, a 400 naming `depth` (docs/graph.md).
   */
  readonly graphMaxRecords: number;
  /** Outgoing calls of social login (shared/social/outbound.ts). */
  readonly socialLogin: SocialLoginConfig;
  readonly webhooks: WebhooksConfig;
  /** User-creation events: where subscriber functions may live and how long each may run (shared/events). */
  readonly events: EventsConfig;
  /** Self-service: who may create organizations, and how many organizations and sites (shared/accounts). */
  readonly quotas: QuotasConfig;
}

/** Self-service limits (docs/security.md, "Quotas and self-service"); superusers are exempt from the counts. */
export interface QuotasConfig {
  /** `any` signed-in user may create organizations, or only `superusers`. */
  readonly organizationCreators: 'any' | 'superusers';
  /** How many organizations one user may own (default 10). */
  readonly organizationsPerUser: number;
  /** How many sites one organization may have (default 20). */
  readonly sitesPerOrganization: number;
}

/** What a registered function may target, and how its events run (docs/events.md). */
export interface EventsConfig {
  /** Local runner: the directory that holds subscriber modules; targets are paths inside it. */
  readonly functionsDir: string;
  /** Cloud: the only AWS account whose Lambda functions may be registered (absent: none may). */
  readonly functionAccount: string | undefined;
  /** Cloud: the prefix every registered Lambda function's name must start with (absent: none may). */
  readonly functionPrefix: string | undefined;
  /**
   * Each subscriber's timeout in seconds (EVENT_FUNCTION_TIMEOUT_SECONDS, default 10, at most 25): a PRE subscriber
   * holds a user creation, which may be an HTTP request behind API Gateway's 29 s, so the wait stays below it.
   */
  readonly functionTimeoutSeconds: number;
  /** Cloud: the Express state machine that runs PRE_USER_CREATE (absent: the local runner is used). */
  readonly stateMachineArn: string | undefined;
}

/** Outgoing webhook deliveries (docs/events.md, "Record events and webhooks"). */
export interface WebhooksConfig {
  /**
   * Hosts (`host` or `host:port`, WEBHOOKS_ALLOWED_HOSTS) that endpoint URLs may name although they resolve to
   * loopback or private addresses (local development and tests); locally they may also use http.
   */
  readonly allowedHosts: readonly string[];
  /** The whole of one delivery, in milliseconds (WEBHOOKS_CALL_TIMEOUT_MS, default 10000). */
  readonly callTimeoutMs: number;
}

export interface SocialLoginConfig {
  /**
   * Hosts (`host` or `host:port`) that provider URLs may name although they resolve to loopback or private
   * addresses (local development and tests); locally they may also use http. Empty in a real deployment.
   */
  readonly allowedHosts: readonly string[];
  /**
   * The whole of one outgoing call, in milliseconds (SOCIAL_LOGIN_CALL_TIMEOUT_MS, default 5000): name resolution,
   * connection, answer and body together; a provider that trickles its answer is cut off at the deadline.
   */
  readonly callTimeoutMs: number;
  /**
   * Logins started (`GET /api/auth/{provider}/redirect/`) per client address, or per user when signed in, within
   * each minute (SOCIAL_LOGIN_REDIRECTS_PER_MINUTE, default 30); each start writes a login state.
   */
  readonly redirectsPerMinute: number;
}

/** Failed public invitation attempts allowed per token within the window (nothing is counted per address). */
export interface InvitationLimits {
  readonly maxFailuresPerToken: number;
  readonly windowSeconds: number;
  readonly lockoutSeconds: number;
  readonly maxLockoutSeconds: number;
}

export interface MailConfig {
  /** Verified SES identity that sends mail in the cloud; when absent, mail goes to the local outbox. */
  readonly sesSender: string | undefined;
  /** The From of outbox messages (and the fallback sender's name). */
  readonly from: string;
  /** Base URL of the acceptance page; the invitation token is appended (`<base>/<token>`). */
  readonly invitationLinkBase: string;
}

/** Password resets by a link e-mailed to the account's address (docs/security.md, "Forgotten passwords"). */
export interface PasswordResetConfig {
  /** `PASSWORD_RESET_TTL_SECONDS`: how long a reset link works (default 3600). */
  readonly ttlSeconds: number;
  /** `PASSWORD_RESET_LINK_BASE`: the reset page; the token follows after `#` (default `<origin>/reset-password`). */
  readonly linkBase: string;
  /** `PASSWORD_RESETS_PER_HOUR`: requests per e-mail address (whether it has an account or not) an hour (5). */
  readonly perAddressPerHour: number;
  /** `PASSWORD_RESETS_PER_CLIENT_PER_HOUR`: requests per client address an hour (30). */
  readonly perClientPerHour: number;
  /**
   * `PASSWORD_RESET_ANSWER_MS`: the request answers no sooner than this after it arrived, whether or not the address
   * has an account, so its time does not tell (default 500).
   */
  readonly answerMs: number;
}

function passwordResetConfig(env: Env, host: string, port: number): PasswordResetConfig {
  const linkBase = optional(env, 'PASSWORD_RESET_LINK_BASE') ?? `http://${host}:${port}/reset-password`;
  if (!/^https?:\/\//.test(linkBase))
    throw new ConfigError('PASSWORD_RESET_LINK_BASE must be an http(s) URL');
  return {
    ttlSeconds: atLeastOne(env, 'PASSWORD_RESET_TTL_SECONDS', 3600),
    linkBase: linkBase.replace(/#.*$/, ''),
    perAddressPerHour: atLeastOne(env, 'PASSWORD_RESETS_PER_HOUR', 5),
    perClientPerHour: atLeastOne(env, 'PASSWORD_RESETS_PER_CLIENT_PER_HOUR', 30),
    answerMs: integer(env, 'PASSWORD_RESET_ANSWER_MS', 500),
  };
}

/** Self sign-up (docs/security.md, "Sign-up and confirming an address"). */
export interface SignUpConfig {
  /** `SIGN_UP`: `open` lets anyone make an account with `POST /api/auth/signup/`; `closed` (default) refuses it. */
  readonly open: boolean;
  /** `EMAIL_VERIFICATION_TTL_SECONDS`: how long a link that confirms an address works (default 86400). */
  readonly verificationTtlSeconds: number;
  /** `EMAIL_VERIFICATION_LINK_BASE`: the page of that link; the token follows after `#`. */
  readonly verificationLinkBase: string;
  /** `SIGN_UPS_PER_CLIENT_PER_HOUR`: sign-ups per client address an hour (20). */
  readonly perClientPerHour: number;
}

function signUpConfig(env: Env, host: string, port: number): SignUpConfig {
  const mode = optional(env, 'SIGN_UP') ?? 'closed';
  if (mode !== 'open' && mode !== 'closed') throw new ConfigError('SIGN_UP must be "open" or "closed"');
  const base = optional(env, 'EMAIL_VERIFICATION_LINK_BASE') ?? `http://${host}:${port}/verify-email`;
  if (!/^https?:\/\//.test(base))
    throw new ConfigError('EMAIL_VERIFICATION_LINK_BASE must be an http(s) URL');
  return {
    open: mode === 'open',
    verificationTtlSeconds: atLeastOne(env, 'EMAIL_VERIFICATION_TTL_SECONDS', 86_400),
    verificationLinkBase: base.replace(/#.*$/, ''),
    perClientPerHour: atLeastOne(env, 'SIGN_UPS_PER_CLIENT_PER_HOUR', 20),
  };
}

/** The hosted pages (pages/, docs/pages.md). */
export interface PagesConfig {
  /** `PAGES_AFTER_SIGN_IN`: the same-origin path a person lands on after signing in (default `/account`). */
  readonly afterSignIn: string;
  /**
   * `PAGES_RETURN_ORIGINS`: origins a `return_to` may lead to besides the pages' own, each for every site
   * (`https://app.example`) or for one site (`acme=https://app.acme.example`). Empty by default.
   */
  readonly returnOrigins: readonly { readonly site: string | null; readonly origin: string }[];
  /**
   * `PASSWORD_CHECKS_PER_MINUTE`: checks of `POST /api/cloud/users/password-check/` (the pages' feedback while a
   * password is typed) per client address, or signed-in user, per minute (default 60).
   */
  readonly passwordChecksPerMinute: number;
}

/** Failures allowed per account and per client address within the window, and the lock that follows. */
export interface LoginLimits {
  readonly maxFailuresPerAccount: number;
  readonly maxFailuresPerIp: number;
  readonly windowSeconds: number;
  /** The first lock; each further failure doubles it, up to `maxLockoutSeconds`. */
  readonly lockoutSeconds: number;
  readonly maxLockoutSeconds: number;
}

export interface DatabaseEndpoint {
  readonly host: string;
  readonly port: number;
  readonly name: string;
  readonly user: string;
  readonly secretArn: string;
  readonly ssl: boolean;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

type Env = Record<string, string | undefined>;

function integer(env: Env, key: string, fallback: number): number {
  const raw = env[key];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0)
    throw new ConfigError(`${key} must be a non-negative integer, got "${raw}"`);
  return value;
}

function atLeastOne(env: Env, key: string, fallback: number): number {
  const value = integer(env, key, fallback);
  if (value < 1) throw new ConfigError(`${key} must be at least 1, got "${env[key]}"`);
  return value;
}

export interface RequestTimeouts {
  readonly headersMs: number;
  readonly requestMs: number;
}

function requestTimeouts(env: Env): RequestTimeouts {
  const requestMs = atLeastOne(env, 'REQUEST_TIMEOUT_MS', 30_000);
  const headersMs = atLeastOne(env, 'REQUEST_HEADERS_TIMEOUT_MS', Math.min(10_000, requestMs));
  if (headersMs > requestMs)
    throw new ConfigError(
      `REQUEST_HEADERS_TIMEOUT_MS must be at most REQUEST_TIMEOUT_MS (${requestMs}), got "${env.REQUEST_HEADERS_TIMEOUT_MS}"`,
    );
  return { headersMs, requestMs };
}

/** The longest drain a stop may be given: an hour. */
export const maxShutdownDeadlineSeconds = 3600;

function shutdownDeadlineSeconds(env: Env): number {
  const value = integer(env, 'SHUTDOWN_DEADLINE_SECONDS', 10);
  if (value > maxShutdownDeadlineSeconds)
    throw new ConfigError(
      `SHUTDOWN_DEADLINE_SECONDS must be at most ${maxShutdownDeadlineSeconds}, got "${env.SHUTDOWN_DEADLINE_SECONDS}"`,
    );
  return value;
}

/** DATABASE_PROXY, and DATABASE_PREPARE, which a proxy forbids (default: prepared unless behind a proxy). */
function databaseClient(env: Env): { databaseProxy: boolean; databasePrepare: boolean } {
  const proxy = flag(env, 'DATABASE_PROXY', false);
  const prepare = flag(env, 'DATABASE_PREPARE', !proxy);
  if (proxy && prepare)
    throw new ConfigError(
      'DATABASE_PREPARE must be false with DATABASE_PROXY=true: a transaction-pooling proxy shares server connections',
    );
  return { databaseProxy: proxy, databasePrepare: prepare };
}

function flag(env: Env, key: string, fallback: boolean): boolean {
  const value = optional(env, key);
  if (value === undefined) return fallback;
  if (value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0') return false;
  throw new ConfigError(`${key} must be true or false`);
}

function optional(env: Env, key: string): string | undefined {
  const raw = env[key];
  return raw === undefined || raw === '' ? undefined : raw;
}

function required(env: Env, key: string): string {
  const value = optional(env, key);
  if (value === undefined) throw new ConfigError(`${key} is required in the cloud runtime`);
  return value;
}

function databaseEndpoint(env: Env): DatabaseEndpoint | undefined {
  const host = optional(env, 'DATABASE_HOST');
  if (!host) return undefined;
  const secretArn = optional(env, 'DATABASE_SECRET_ARN');
  if (!secretArn) throw new ConfigError('DATABASE_SECRET_ARN is required with DATABASE_HOST');
  return {
    host,
    port: integer(env, 'DATABASE_PORT', 5432),
    name: optional(env, 'DATABASE_NAME') ?? 'postgres',
    user: optional(env, 'DATABASE_USER') ?? 'postgres',
    secretArn,
    ssl: optional(env, 'DATABASE_SSL') !== 'disable',
  };
}

function loginLimits(env: Env): LoginLimits {
  const positive = (key: string, fallback: number) => {
    const value = integer(env, key, fallback);
    if (value < 1) throw new ConfigError(`${key} must be at least 1, got "${env[key]}"`);
    return value;
  };
  return {
    maxFailuresPerAccount: positive('LOGIN_MAX_FAILURES_PER_ACCOUNT', 5),
    maxFailuresPerIp: positive('LOGIN_MAX_FAILURES_PER_IP', 50),
    windowSeconds: positive('LOGIN_FAILURE_WINDOW_SECONDS', 900),
    lockoutSeconds: positive('LOGIN_LOCKOUT_SECONDS', 30),
    maxLockoutSeconds: positive('LOGIN_LOCKOUT_MAX_SECONDS', 3600),
  };
}

function invitationLimits(env: Env): InvitationLimits {
  const positive = (key: string, fallback: number) => {
    const value = integer(env, key, fallback);
    if (value < 1) throw new ConfigError(`${key} must be at least 1, got "${env[key]}"`);
    return value;
  };
  return {
    maxFailuresPerToken: positive('INVITATION_MAX_FAILURES_PER_TOKEN', 10),
    windowSeconds: positive('INVITATION_FAILURE_WINDOW_SECONDS', 900),
    lockoutSeconds: positive('INVITATION_LOCKOUT_SECONDS', 60),
    maxLockoutSeconds: positive('INVITATION_LOCKOUT_MAX_SECONDS', 3600),
  };
}

/** `INVITATION_TTL_SECONDS`: 7 days unless set; at least 1 second. */
function invitationTtl(env: Env): number {
  const value = integer(env, 'INVITATION_TTL_SECONDS', 7 * 24 * 3600);
  if (value < 1)
    throw new ConfigError(`INVITATION_TTL_SECONDS must be at least 1, got "${env.INVITATION_TTL_SECONDS}"`);
  return value;
}

function mailConfig(env: Env, host: string, port: number): MailConfig {
  const sesSender = optional(env, 'MAIL_SES_SENDER');
  const base = optional(env, 'INVITATION_LINK_BASE') ?? `http://${host}:${port}/invitations`;
  if (!/^https?:\/\//.test(base)) throw new ConfigError('INVITATION_LINK_BASE must be an http(s) URL');
  return {
    sesSender,
    from: sesSender ?? optional(env, 'MAIL_FROM') ?? 'tenantbase@localhost',
    invitationLinkBase: base.replace(/\/+$/, ''),
  };
}

/** At most this many `PAGES_RETURN_ORIGINS` entries: each page load compares against them. */
export const maxReturnOrigins = 50;

function pagesConfig(env: Env): PagesConfig {
  const afterSignIn = optional(env, 'PAGES_AFTER_SIGN_IN') ?? '/account';
  if (!/^\/(?![/\\])[^\s]{0,500}$/.test(afterSignIn))
    throw new ConfigError('PAGES_AFTER_SIGN_IN must be a path of this origin, starting with one "/"');
  const entries = (optional(env, 'PAGES_RETURN_ORIGINS') ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  if (entries.length > maxReturnOrigins)
    throw new ConfigError(`PAGES_RETURN_ORIGINS may list at most ${maxReturnOrigins} origins`);
  const returnOrigins = entries.map((entry) => {
    const at = entry.indexOf('=');
    const site = at > 0 ? entry.slice(0, at).trim().toLowerCase() : null;
    const origin = at > 0 ? entry.slice(at + 1).trim() : entry;
    let parsed: URL;
    try {
      parsed = new URL(origin);
    } catch {
      throw new ConfigError(`PAGES_RETURN_ORIGINS: "${entry}" is not an origin like https://app.example`);
    }
    if (!/^https?:$/.test(parsed.protocol) || parsed.origin !== origin.replace(/\/$/, ''))
      throw new ConfigError(`PAGES_RETURN_ORIGINS: "${entry}" is not an origin like https://app.example`);
    if (site !== null && !/^[a-z0-9]+(?:-[a-z0-9]+)*$/.test(site))
      throw new ConfigError(`PAGES_RETURN_ORIGINS: "${site}" is not a site slug`);
    return { site, origin: parsed.origin };
  });
  return {
    afterSignIn,
    returnOrigins,
    passwordChecksPerMinute: atLeastOne(env, 'PASSWORD_CHECKS_PER_MINUTE', 60),
  };
}

function corsOrigins(env: Env): readonly string[] {
  const raw = optional(env, 'CORS_ORIGINS');
  if (raw === undefined) return defaultCorsOrigins;
  const parsed = parseCorsOrigins(raw);
  if ('error' in parsed) throw new ConfigError(`CORS_ORIGINS ${parsed.error}`);
  return parsed;
}

/** The subscriber timeout's default and maximum: below API Gateway's 29 s integration timeout, with room to answer. */
export const defaultFunctionTimeoutSeconds = 10;
export const maxFunctionTimeoutSeconds = 25;

function eventsConfig(env: Env): EventsConfig {
  const raw = optional(env, 'EVENT_FUNCTION_TIMEOUT_SECONDS');
  const timeout = raw === undefined ? defaultFunctionTimeoutSeconds : Number(raw);
  if (!(timeout > 0 && timeout <= maxFunctionTimeoutSeconds))
    throw new ConfigError(
      `EVENT_FUNCTION_TIMEOUT_SECONDS must be a number in (0, ${maxFunctionTimeoutSeconds}], got "${raw}"`,
    );
  const account = optional(env, 'EVENT_FUNCTION_ACCOUNT');
  if (account !== undefined && !/^\d{12}$/.test(account))
    throw new ConfigError('EVENT_FUNCTION_ACCOUNT must be a 12-digit AWS account id');
  const prefix = optional(env, 'EVENT_FUNCTION_PREFIX');
  if (prefix !== undefined && !/^[A-Za-z0-9_-]{1,40}$/.test(prefix))
    throw new ConfigError('EVENT_FUNCTION_PREFIX must be 1 to 40 letters, digits, "-" or "_"');
  return {
    functionsDir: optional(env, 'EVENT_FUNCTIONS_DIR') ?? 'functions/subscribers',
    functionAccount: account,
    functionPrefix: prefix,
    functionTimeoutSeconds: timeout,
    stateMachineArn: optional(env, 'EVENT_STATE_MACHINE_ARN'),
  };
}

const organizationCreators = ['any', 'superusers'] as const;

function quotasConfig(env: Env): QuotasConfig {
  const positive = (key: string, fallback: number) => {
    const value = integer(env, key, fallback);
    if (value < 1) throw new ConfigError(`${key} must be at least 1, got "${env[key]}"`);
    return value;
  };
  const creators = optional(env, 'ORGANIZATION_CREATORS') ?? 'any';
  if (!(organizationCreators as readonly string[]).includes(creators))
    throw new ConfigError(`ORGANIZATION_CREATORS must be any or superusers, got "${creators}"`);
  return {
    organizationCreators: creators as QuotasConfig['organizationCreators'],
    organizationsPerUser: positive('ORGANIZATIONS_PER_USER', 10),
    sitesPerOrganization: positive('SITES_PER_ORGANIZATION', 20),
  };
}

function sessionSeconds(env: Env): number {
  const value = integer(env, 'SESSION_SECONDS', 14 * 24 * 3600);
  if (value < 1) throw new ConfigError(`SESSION_SECONDS must be at least 1, got "${env.SESSION_SECONDS}"`);
  return value;
}

/** The local JWT key used when JWT_SIGNING_KEY_ID is not set (the file keys/jwt-signing-key.pem). */
export const defaultLocalJwtKey = 'local:signing-key';

/** `local:<name>`: a key file under the data directory; the name becomes part of a file name, so it is plain. */
const localJwtKey = /^local:[a-z0-9][a-z0-9-]{0,62}$/;

function jwtKeyId(id: string, runtime: Runtime, key: string): string {
  if (!id.startsWith('local:')) return id;
  if (runtime === 'aws') throw new ConfigError(`${key}: local keys ("${id}") are for the local runtime only`);
  if (!localJwtKey.test(id))
    throw new ConfigError(`${key}: a local key is local:<name>, lower-case letters, digits, -`);
  return id;
}

/** The signing key and the other verification keys, each once; the signing key is never listed twice. */
function jwtKeyIds(env: Env, runtime: Runtime): Pick<Config, 'jwtSigningKeyId' | 'jwtVerificationKeyIds'> {
  const raw = runtime === 'aws' ? required(env, 'JWT_SIGNING_KEY_ID') : optional(env, 'JWT_SIGNING_KEY_ID');
  const signing = raw === undefined ? undefined : jwtKeyId(raw, runtime, 'JWT_SIGNING_KEY_ID');
  const listed = (optional(env, 'JWT_VERIFICATION_KEY_IDS') ?? '')
    .split(',')
    .map((id) => id.trim())
    .filter((id) => id !== '')
    .map((id) => jwtKeyId(id, runtime, 'JWT_VERIFICATION_KEY_IDS'));
  const effective = signing ?? defaultLocalJwtKey;
  return {
    jwtSigningKeyId: signing,
    jwtVerificationKeyIds: [...new Set(listed)].filter((id) => id !== effective),
  };
}

/**
 * Where the local runtime looks for a Dynoxide binary when it starts the embedded DynamoDB (docs/local-runtime.md):
 * DYNOXIDE_BIN names one; otherwise the platform package, then `dynoxide` on PATH.
 */
export interface DynoxideSettings {
  readonly bin: string | undefined;
  /** PATH, as the operating system searches it. */
  readonly searchPath: string;
}

export function dynoxideSettings(env: Env = process.env): DynoxideSettings {
  return { bin: optional(env, 'DYNOXIDE_BIN'), searchPath: env.PATH ?? env.Path ?? '' };
}

const logLevels = ['debug', 'info', 'warn', 'error', 'silent'] as const;

/** Reads the configuration from an environment, failing fast with the missing or malformed key's name. */
export function loadConfig(env: Env = process.env): Config {
  const runtime: Runtime = env.AWS_LAMBDA_FUNCTION_NAME || env.PLATFORM_RUNTIME === 'aws' ? 'aws' : 'local';
  const logLevel = (optional(env, 'LOG_LEVEL') ?? 'info') as Config['logLevel'];
  if (!logLevels.includes(logLevel))
    throw new ConfigError(`LOG_LEVEL must be one of ${logLevels.join(', ')}`);
  const port = integer(env, 'PORT', 3000);
  const host = optional(env, 'HOST') ?? '127.0.0.1';
  return {
    runtime,
    port,
    host,
    dataDir: optional(env, 'DATA_DIR') ?? '.data',
    adminEmail: optional(env, 'ADMIN_EMAIL'),
    adminPassword: optional(env, 'ADMIN_PASSWORD'),
    databaseUrl: optional(env, 'DATABASE_URL'),
    databaseEndpoint: databaseEndpoint(env),
    databasePoolSize: integer(env, 'DATABASE_POOL_SIZE', 2),
    ...databaseClient(env),
    accessCacheSeconds: integer(env, 'ACCESS_CACHE_SECONDS', 3),
    apiKeyRequestsPerSecond: atLeastOne(env, 'API_KEY_REQUESTS_PER_SECOND', 100),
    databaseStatementTimeoutMs: integer(env, 'DATABASE_STATEMENT_TIMEOUT_MS', 10_000),
    shutdownDeadlineSeconds: shutdownDeadlineSeconds(env),
    requestTimeouts: requestTimeouts(env),
    deletionStepsPerRequest: atLeastOne(env, 'DELETION_STEPS_PER_REQUEST', 500),
    deletions: {
      inBackground: flag(env, 'DELETIONS_IN_BACKGROUND', true),
      sweeperFunction: optional(env, 'DELETION_SWEEPER_FUNCTION'),
    },
    dynamodbEndpoint: optional(env, 'DYNAMODB_ENDPOINT'),
    tableName: runtime === 'aws' ? required(env, 'TABLE_NAME') : (optional(env, 'TABLE_NAME') ?? 'platform'),
    region: optional(env, 'AWS_REGION') ?? 'us-east-1',
    defaultSite: optional(env, 'DEFAULT_SITE'),
    baseDomain: optional(env, 'BASE_DOMAIN'),
    jwtIssuer: optional(env, 'JWT_ISSUER') ?? `http://${host}:${port}`,
    jwtAudience: optional(env, 'JWT_AUDIENCE') ?? 'platform-api',
    accessTokenSeconds: integer(env, 'ACCESS_TOKEN_SECONDS', 3600),
    refreshTokenSeconds: integer(env, 'REFRESH_TOKEN_SECONDS', 7 * 24 * 3600),
    sessionSeconds: sessionSeconds(env),
    ...jwtKeyIds(env, runtime),
    secretsKeyId: optional(env, 'SECRETS_KEY_ID'),
    logLevel,
    loginLimits: loginLimits(env),
    corsOrigins: corsOrigins(env),
    pages: pagesConfig(env),
    mail: mailConfig(env, host, port),
    invitationLimits: invitationLimits(env),
    invitationTtlSeconds: invitationTtl(env),
    passwordReset: passwordResetConfig(env, host, port),
    signUp: signUpConfig(env, host, port),
    socialLogin: {
      allowedHosts: (optional(env, 'SOCIAL_LOGIN_ALLOWED_HOSTS') ?? '')
        .split(',')
        .map((host) => host.trim().toLowerCase())
        .filter(Boolean),
      callTimeoutMs: atLeastOne(env, 'SOCIAL_LOGIN_CALL_TIMEOUT_MS', 5000),
      redirectsPerMinute: atLeastOne(env, 'SOCIAL_LOGIN_REDIRECTS_PER_MINUTE', 30),
    },
    webhooks: {
      allowedHosts: (optional(env, 'WEBHOOKS_ALLOWED_HOSTS') ?? '')
        .split(',')
        .map((host) => host.trim().toLowerCase())
        .filter(Boolean),
      callTimeoutMs: atLeastOne(env, 'WEBHOOKS_CALL_TIMEOUT_MS', 10_000),
    },
    events: eventsConfig(env),
    quotas: quotasConfig(env),
    graphMaxDepth: integer(env, 'DATA_SERVICE_GRAPH_MAX_DEPTH', 10),
    graphMaxRecords: integer(env, 'DATA_SERVICE_GRAPH_MAX_RECORDS', 10_000),
  };
}
