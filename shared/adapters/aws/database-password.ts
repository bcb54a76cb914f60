import { GetSecretValueCommand, type SecretsManagerClient } from '@aws-sdk/client-secrets-manager';

/**
 * Reads the database password from the Secrets Manager secret that RDS generated (JSON with `password`), caching
 * it for a few minutes so that new connections do not each call Secrets Manager, and so that a rotated password is
 * picked up soon after rotation.
 */
export class SecretsManagerPassword {
  private cached: { value: Promise<string>; at: number } | undefined;

  constructor(
    private readonly client: SecretsManagerClient,
    private readonly secretArn: string,
    private readonly maxAgeMs = 5 * 60 * 1000,
    private readonly now: () => number = Date.now,
  ) {}

  /** The current password. */
  get(): Promise<string> {
    if (this.cached && this.now() - this.cached.at < this.maxAgeMs) return this.cached.value;
    const value = this.client.send(new GetSecretValueCommand({ SecretId: this.secretArn })).then((result) => {
      const password = result.SecretString
        ? (JSON.parse(result.SecretString) as { password?: unknown }).password
        : undefined;
      if (typeof password !== 'string') throw new Error('The database secret holds no password');
      return password;
    });
    const entry = { value, at: this.now() };
    this.cached = entry;
    value.catch(() => {
      if (this.cached === entry) this.cached = undefined;
    });
    return value;
  }
}
