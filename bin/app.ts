import { App } from 'aws-cdk-lib';
import { stackName, stackSettings } from '../infra/settings';
import { PlatformStack } from '../infra/stack';

/** The CDK app: `npm run synth`, `npx cdk deploy -c stage=prod` (docs/deploying.md). */
const app = new App();
const settings = stackSettings((key) => app.node.tryGetContext(key));
// A stage that pins its account and region (prod: cdk.json) deploys there; the others wherever the deployer's
// credentials point.
new PlatformStack(app, stackName(settings.stage), {
  ...settings,
  env: settings.env ?? { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
});
