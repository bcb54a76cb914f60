import { GetSecretValueCommand, type SecretsManagerClient } from '@aws-sdk/client-secrets-manager';

/** A database login as its secret holds it (`username` is absent from hand-made secrets). */
export interface DatabaseCredentials {
  readonly username?: string;
  readonly password: string;
}

/**
 * Reads the database login from the Secrets Manager secret that RDS generated (JSON with `username` and
 * `password`), caching it for a few minutes so that new connections do not each call Secrets Manager, and so that
 * a rotated password is picked up soon after rotation; `refresh` forgets it at once (after the database refused a
 * connection).
 */
export class SecretsManagerPassword {
  private cached: { value: Promise<DatabaseCredentials>; at: number } | undefined;

  constructor(
    private readonly client: SecretsManagerClient,
    private readonly secretArn: string,
    private readonly maxAgeMs = 5 * 60 * 1000,
    private readonly now: () => number = Date.now,
  ) {}

  /** The current password. */
  async get(): Promise<string> {
    return (await this.credentials()).password;
  }

  /** Forgets the cached login: the next connection reads the secret again. */
  async refresh(): Promise<void> {
    this.cached = undefined;
  }

  /** The current user name and password. */
  credentials(): Promise<DatabaseCredentials> {
    if (this.cached && this.now() - this.cached.at < this.maxAgeMs) return this.cached.value;
    const value = this.client.send(new GetSecretValueCommand({ SecretId: this.secretArn })).then((result) => {
      const parsed = result.SecretString
        ? (JSON.parse(result.SecretString) as { username?: unknown; password?: unknown })
        : {};
      if (typeof parsed.password !== 'string') throw new Error('The database secret holds no password');
      return typeof parsed.username === 'string'
        ? { username: parsed.username, password: parsed.password }
        : { password: parsed.password };
    });
    const entry = { value, at: this.now() };
    this.cached = entry;
    value.catch(() => {
      if (this.cached === entry) this.cached = undefined;
    });
    return value;
  }
}
