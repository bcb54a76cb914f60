import type { UserCreationEvents } from '../accounts/user-creation-events';
import type { Config } from '../config';
import { guardedRunner } from '../events/guard';
import { subscribedUserCreationEvents } from '../events/publisher';
import type { EventRunner } from '../events/runner';
import { checkTarget } from '../events/targets';
import { onFirstUse } from '../lazy';
import type { Logger } from '../log';
import type { Store } from '../store/store';

/** The runner of this runtime: Step Functions and Lambda in the cloud, subscriber modules run in process locally. */
async function runnerOf(config: Config, log: Logger): Promise<EventRunner> {
  if (config.runtime !== 'aws')
    return new (await import('../adapters/local/event-runner')).LocalEventRunner(config.events, log);
  const { CloudEventRunner } = await import('../adapters/aws/cloud-event-runner');
  return new CloudEventRunner(
    async () => new (await import('@aws-sdk/client-sfn')).SFNClient({ region: config.region }),
    async () => new (await import('@aws-sdk/client-lambda')).LambdaClient({ region: config.region }),
    config.events.stateMachineArn,
    config.events.functionTimeoutSeconds,
    log,
  );
}

/**
 * The user-creation events of this runtime. The runner and its AWS clients load on the first publish that has
 * subscribers, so groups that never create users (or sites without subscribers) do not pay for them at cold start.
 * Every subscriber's target is checked against its site's rule before each run (shared/events/guard.ts).
 */
export function createUserCreationEvents(config: Config, store: Store, log: Logger): UserCreationEvents {
  const runner = onFirstUse(() => runnerOf(config, log));
  const lazy: EventRunner = {
    runBlocking: async (event, subscribers, data) => (await runner()).runBlocking(event, subscribers, data),
    runDetached: async (event, subscribers, data) => (await runner()).runDetached(event, subscribers, data),
  };
  const check = (s: { target: string; site: string }) => checkTarget(s.target, config, s.site);
  return subscribedUserCreationEvents(store, log, guardedRunner(lazy, check, log));
}
