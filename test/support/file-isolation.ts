import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { KMSClient } from '@aws-sdk/client-kms';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SESClient } from '@aws-sdk/client-ses';
import { SFNClient } from '@aws-sdk/client-sfn';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, vi } from 'vitest';

/**
 * Test files share their worker's process and modules (`isolate: false` in vitest.config.ts): what one file changes
 * in the process is put back when it is done, whatever it forgot or however it failed. This hook is registered
 * before the file's own, so it runs after them (its platform is stopped first).
 *
 * A class-wide `mockClient(...)` of aws-sdk-client-mock replaces the class's `send` for every later file of the
 * worker: each file restores its own, and a file that leaves one in place fails here, naming the class.
 */
const clients = {
  DynamoDBClient,
  DynamoDBDocumentClient,
  KMSClient,
  LambdaClient,
  SecretsManagerClient,
  SESClient,
  SFNClient,
};

afterAll(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
  vi.unstubAllGlobals();
  vi.useRealTimers();
  vi.resetConfig();
  // A stub left by mockClient has `restore` (sinon); the SDK's own `send` has not.
  const mocked = Object.entries(clients).filter(
    ([, client]) => typeof (client.prototype.send as { restore?: unknown }).restore === 'function',
  );
  for (const [, client] of mocked) (client.prototype.send as unknown as { restore: () => void }).restore();
  if (mocked.length > 0)
    throw new Error(
      `mockClient(${mocked.map(([name]) => name).join(', ')}) was not restored: call .restore() in the file's afterAll`,
    );
});
