/**
 * The AWS credentials of a Lambda function: its execution role's, which Lambda puts in the environment. The Lambda
 * bundles use this module in place of the SDK's default provider chain (`@aws-sdk/credential-provider-node`, see
 * infra/bundling.ts), whose SSO, STS, profile-file and instance-metadata providers never run in a Lambda and
 * weighed about 100 KiB in every bundle. The local server and the tools keep the SDK's full chain.
 */

export interface EnvironmentCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
}

/** Same name and shape as the SDK's `defaultProvider`: the clients call it with their configuration, unused here. */
export function defaultProvider(_init?: unknown): () => Promise<EnvironmentCredentials> {
  return async () => {
    const accessKeyId = process.env.AWS_ACCESS_KEY_ID;
    const secretAccessKey = process.env.AWS_SECRET_ACCESS_KEY;
    if (!accessKeyId || !secretAccessKey)
      throw new Error('No AWS credentials in the environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY)');
    const sessionToken = process.env.AWS_SESSION_TOKEN;
    return { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) };
  };
}
