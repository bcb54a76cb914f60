import { readFileSync } from 'node:fs';
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { stackSettings } from '../../infra/settings';
import { PlatformStack } from '../../infra/stack';

/** The settings of a stage exactly as `cdk deploy -c stage=<stage>` reads them from the committed cdk.json. */
function committedStage(stage: string) {
  const context = (JSON.parse(readFileSync('cdk.json', 'utf8')) as { context: Record<string, unknown> })
    .context;
  return stackSettings((key) => (key === 'stage' ? stage : context[key]));
}

function synthWithChecks(props: ConstructorParameters<typeof PlatformStack>[2] = {}) {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  new PlatformStack(app, 'Nag', props);
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return () => app.synth();
}

describe('cdk-nag AwsSolutions checks', () => {
  // Synthesis with the checks takes seconds on a shared machine.
  it('pass on the default stack with only justified acknowledgements', () => {
    expect(synthWithChecks()).not.toThrow();
  }, 120_000);

  it('pass on a production stage with a custom domain, alarm e-mail, reserved concurrency and two JWT keys', () => {
    const domain = {
      name: 'api.example.com',
      certificateArn: 'arn:aws:acm:eu-west-1:111111111111:certificate/x',
    };
    const check = synthWithChecks({
      stage: 'prod',
      domain,
      alarmEmail: 'ops@example.com',
      reservedConcurrency: { auth: 20, data: 100 },
      jwtKeys: { signing: 2, verification: [1] },
    });
    expect(check).not.toThrow();
  }, 120_000);

  it.each(['dev', 'prod'])(
    'pass on the %s block of the committed cdk.json',
    (stage) => {
      expect(synthWithChecks(committedStage(stage))).not.toThrow();
    },
    240_000,
  );
});
