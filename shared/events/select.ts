import { CloudEventRunner } from '../adapters/aws/cloud-event-runner';
import { LocalEventRunner } from '../adapters/local/event-runner';
import type { Config } from '../config';
import type { Logger } from '../log';
import type { Store } from '../store/store';
import { subscribedUserCreationEvents } from './publisher';
import type { UserCreationEvents } from './user-creation';

/**
 * The user-creation events of this runtime: the cloud runner in Lambda (its AWS clients are loaded on the first
 * publish, so groups that never create users do not pay for them at cold start), the local runner otherwise.
 */
export function createUserCreationEvents(config: Config, store: Store, log: Logger): UserCreationEvents {
  const runner =
    config.runtime === 'aws'
      ? new CloudEventRunner(
          async () => new (await import('@aws-sdk/client-sfn')).SFNClient({ region: config.region }),
          async () => new (await import('@aws-sdk/client-lambda')).LambdaClient({ region: config.region }),
          config.events.stateMachineArn,
          config.events.functionTimeoutSeconds,
          log,
        )
      : new LocalEventRunner(config.events, log);
  return subscribedUserCreationEvents(store, log, runner);
}
