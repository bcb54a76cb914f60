import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../shared/config';

describe('loadConfig', () => {
  it('runs locally on defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      runtime: 'local',
      port: 3000,
      host: '127.0.0.1',
      dataDir: '.data',
      tableName: 'platform',
      databaseUrl: undefined,
      dynamodbEndpoint: undefined,
      databasePoolSize: 2,
      databaseStatementTimeoutMs: 10_000,
    });
    expect(loadConfig({ DATABASE_STATEMENT_TIMEOUT_MS: '2500' }).databaseStatementTimeoutMs).toBe(2500);
  });

  it('names the missing key in the cloud', () => {
    expect(() => loadConfig({ AWS_LAMBDA_FUNCTION_NAME: 'fn' })).toThrow(
      new ConfigError('TABLE_NAME is required in the cloud runtime'),
    );
    expect(() => loadConfig({ AWS_LAMBDA_FUNCTION_NAME: 'fn', TABLE_NAME: 't' })).toThrow(
      'JWT_SIGNING_KEY_ID',
    );
  });

  it('selects the proxy client behaviour with DATABASE_PROXY: no named prepared statements', () => {
    expect(loadConfig({})).toMatchObject({ databaseProxy: false, databasePrepare: true });
    expect(loadConfig({ DATABASE_PREPARE: 'false' })).toMatchObject({
      databaseProxy: false,
      databasePrepare: false,
    });
    expect(loadConfig({ DATABASE_PROXY: 'true' })).toMatchObject({
      databaseProxy: true,
      databasePrepare: false,
    });
    expect(() => loadConfig({ DATABASE_PROXY: 'true', DATABASE_PREPARE: 'true' })).toThrow(
      'DATABASE_PREPARE must be false with DATABASE_PROXY=true',
    );
    expect(() => loadConfig({ DATABASE_PROXY: 'yes' })).toThrow('DATABASE_PROXY must be true or false');
  });

  it('names a malformed number', () => {
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow('PORT must be a non-negative integer, got "eighty"');
  });
});

describe('loadConfig database endpoint', () => {
  it('reads the proxy endpoint and secret the stack passes', () => {
    const config = loadConfig({
      DATABASE_HOST: 'proxy.example',
      DATABASE_PORT: '5432',
      DATABASE_NAME: 'platform',
      DATABASE_USER: 'platform_admin',
      DATABASE_SECRET_ARN: 'arn:secret',
      DATABASE_SSL: 'require',
    });
    expect(config.databaseEndpoint).toEqual({
      host: 'proxy.example',
      port: 5432,
      name: 'platform',
      user: 'platform_admin',
      secretArn: 'arn:secret',
      ssl: true,
    });
  });

  it('names the missing secret', () => {
    expect(() => loadConfig({ DATABASE_HOST: 'proxy.example' })).toThrow('DATABASE_SECRET_ARN is required');
  });

  it('lets any origin call the API by default, or the comma-separated CORS_ORIGINS', () => {
    expect(loadConfig({}).corsOrigins).toEqual(['*']);
    expect(
      loadConfig({ CORS_ORIGINS: 'http://localhost:5173, https://app.example.com' }).corsOrigins,
    ).toEqual(['http://localhost:5173', 'https://app.example.com']);
  });

  it('names a CORS_ORIGINS entry that is not an origin', () => {
    expect(() => loadConfig({ CORS_ORIGINS: 'http://localhost:5173/' })).toThrow(
      new ConfigError(
        'CORS_ORIGINS "http://localhost:5173/" is not an origin (scheme://host[:port], no path or trailing slash)',
      ),
    );
    expect(() => loadConfig({ CORS_ORIGINS: ' , ' })).toThrow('CORS_ORIGINS names no origin');
  });
});

describe('loadConfig sign-in limits', () => {
  it('has defaults and reads each limit', () => {
    expect(loadConfig({}).loginLimits).toEqual({
      maxFailuresPerAccount: 5,
      maxFailuresPerIp: 50,
      windowSeconds: 900,
      lockoutSeconds: 30,
      maxLockoutSeconds: 3600,
    });
    expect(loadConfig({ LOGIN_MAX_FAILURES_PER_ACCOUNT: '3' }).loginLimits.maxFailuresPerAccount).toBe(3);
  });

  it('refuses a limit of zero, naming the key', () => {
    expect(() => loadConfig({ LOGIN_MAX_FAILURES_PER_IP: '0' })).toThrow(
      'LOGIN_MAX_FAILURES_PER_IP must be at least 1',
    );
  });

  it('keeps browser sessions two weeks by default, or SESSION_SECONDS (at least 1)', () => {
    expect(loadConfig({}).sessionSeconds).toBe(1_209_600);
    expect(loadConfig({ SESSION_SECONDS: '3600' }).sessionSeconds).toBe(3600);
    expect(() => loadConfig({ SESSION_SECONDS: '0' })).toThrow(
      new ConfigError('SESSION_SECONDS must be at least 1, got "0"'),
    );
  });
});

describe('loadConfig self-service quotas', () => {
  it('lets anyone create organizations, 10 owned per user and 20 sites per organization, by default', () => {
    expect(loadConfig({}).quotas).toEqual({
      organizationCreators: 'any',
      organizationsPerUser: 10,
      sitesPerOrganization: 20,
    });
  });

  it('reads each setting', () => {
    expect(
      loadConfig({
        ORGANIZATION_CREATORS: 'superusers',
        ORGANIZATIONS_PER_USER: '3',
        SITES_PER_ORGANIZATION: '1',
      }).quotas,
    ).toEqual({ organizationCreators: 'superusers', organizationsPerUser: 3, sitesPerOrganization: 1 });
  });

  it('names a malformed setting', () => {
    expect(() => loadConfig({ ORGANIZATION_CREATORS: 'admins' })).toThrow(
      new ConfigError('ORGANIZATION_CREATORS must be any or superusers, got "admins"'),
    );
    expect(() => loadConfig({ ORGANIZATIONS_PER_USER: '0' })).toThrow(
      'ORGANIZATIONS_PER_USER must be at least 1',
    );
    expect(() => loadConfig({ SITES_PER_ORGANIZATION: 'many' })).toThrow('SITES_PER_ORGANIZATION must be');
  });
});

describe('loadConfig request deadlines of the local server', () => {
  it("has API Gateway's 30 s for the request and 10 s for its head by default, or reads each", () => {
    expect(loadConfig({}).requestTimeouts).toEqual({ headersMs: 10_000, requestMs: 30_000 });
    expect(
      loadConfig({ REQUEST_TIMEOUT_MS: '400', REQUEST_HEADERS_TIMEOUT_MS: '200' }).requestTimeouts,
    ).toEqual({
      headersMs: 200,
      requestMs: 400,
    });
    // A request deadline below the head's default takes the head's along.
    expect(loadConfig({ REQUEST_TIMEOUT_MS: '500' }).requestTimeouts).toEqual({
      headersMs: 500,
      requestMs: 500,
    });
  });

  it('refuses a head deadline beyond the request deadline, and zero, naming the key', () => {
    expect(() => loadConfig({ REQUEST_TIMEOUT_MS: '400', REQUEST_HEADERS_TIMEOUT_MS: '500' })).toThrow(
      /REQUEST_HEADERS_TIMEOUT_MS must be at most REQUEST_TIMEOUT_MS/,
    );
    expect(() => loadConfig({ REQUEST_TIMEOUT_MS: '0' })).toThrow(/REQUEST_TIMEOUT_MS/);
  });
});
