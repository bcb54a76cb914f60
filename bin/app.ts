import { App } from 'aws-cdk-lib';
import { PlatformStack } from '../infra/stack';

/** The CDK app: `npm run synth`, `npx cdk deploy`. */
const app = new App();
new PlatformStack(app, 'Platform', {
  deletionProtection: app.node.tryGetContext('deletionProtection') !== 'false',
  defaultSite: app.node.tryGetContext('defaultSite'),
  baseDomain: app.node.tryGetContext('baseDomain'),
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
});
