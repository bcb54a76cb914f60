import { App } from 'aws-cdk-lib';
import { PlatformStack } from '../infra/stack';
import { parseCorsOrigins } from '../shared/http/cors';

/** `-c corsOrigins=https://app.example.com,https://admin.example.com`, read like the local CORS_ORIGINS. */
function corsOrigins(raw: unknown): string[] | undefined {
  if (raw === undefined) return undefined;
  const parsed = parseCorsOrigins(String(raw));
  if ('error' in parsed) throw new Error(`corsOrigins ${parsed.error}`);
  return parsed;
}

/** The CDK app: `npm run synth`, `npx cdk deploy`. */
const app = new App();
new PlatformStack(app, 'Platform', {
  deletionProtection: app.node.tryGetContext('deletionProtection') !== 'false',
  defaultSite: app.node.tryGetContext('defaultSite'),
  baseDomain: app.node.tryGetContext('baseDomain'),
  corsOrigins: corsOrigins(app.node.tryGetContext('corsOrigins')),
  mailSender: app.node.tryGetContext('mailSender'),
  invitationLinkBase: app.node.tryGetContext('invitationLinkBase'),
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
});
