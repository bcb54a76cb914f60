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
    });
  });

  it('names the missing key in the cloud', () => {
    expect(() => loadConfig({ AWS_LAMBDA_FUNCTION_NAME: 'fn' })).toThrow(
      new ConfigError('TABLE_NAME is required in the cloud runtime'),
    );
    expect(() => loadConfig({ AWS_LAMBDA_FUNCTION_NAME: 'fn', TABLE_NAME: 't' })).toThrow(
      'JWT_SIGNING_KEY_ID',
    );
  });

  it('names a malformed number', () => {
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow('PORT must be a non-negative integer, got "eighty"');
  });
});
