import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { LocalKeyring } from '../../shared/adapters/local/keyring';
import { open } from '../../shared/keys/envelope';
import { secretKeys } from '../../shared/secrets/keys';

/**
 * SE1's floor: one consistent GetItem of the project's secret item and its decryption (data key unwrapped with the
 * project's local master key, then AES-256-GCM) on every request: no authentication, no cache, no lookup order.
 *
 * Environment: FLOOR_DYNAMODB_ENDPOINT, FLOOR_TABLE_NAME, FLOOR_KEYRING (the project's master key file).
 */
const env = process.env;
let reader: { doc: DynamoDBDocumentClient; keys: LocalKeyring } | undefined;

function connect() {
  reader ??= {
    doc: DynamoDBDocumentClient.from(
      new DynamoDBClient({
        region: 'us-east-1',
        endpoint: env.FLOOR_DYNAMODB_ENDPOINT,
        credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      }),
    ),
    keys: new LocalKeyring(env.FLOOR_KEYRING ?? ''),
  };
  return reader;
}

/** The secret of `site`, `app` and `key`, decrypted; undefined when there is none. */
export async function readSecret(site: string, app: string, key: string): Promise<unknown> {
  const { doc, keys } = connect();
  const { Item: item } = await doc.send(
    new GetCommand({
      TableName: env.FLOOR_TABLE_NAME ?? 'platform',
      Key: secretKeys.secret(site, app, key),
      ConsistentRead: true,
    }),
  );
  if (!item) return undefined;
  const value = await open(
    keys,
    { ciphertext: String(item.ciphertext), encrypted_key: String(item.encrypted_key) },
    { site, app, key },
  );
  return { key: item.key, tags: item.tags, secret_type: item.type_name, value };
}
