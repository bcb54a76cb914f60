import { pad } from '../accounts/keys';
import type { EventName } from './model';

/** DynamoDB keys of the events domain (docs/data-model.md). */
export const eventKeys = {
  /** Functions of a site, one partition; each app's are filtered from it (few per site). */
  functions: (site: string) => `SITE#${site}#FUNCTIONS`,
  function: (site: string, id: number) => ({ PK: eventKeys.functions(site), SK: `FN#${pad(id)}` }),
  functionSlug: (site: string, app: string, slug: string) => ({
    PK: eventKeys.functions(site),
    SK: `SLUG#${app}#${slug}`,
  }),
  /** Subscriptions of a site, one partition; those of one event share a sort-key prefix. */
  subscriptions: (site: string) => `SITE#${site}#EVENTS`,
  subscriptionPrefix: (event: EventName) => `SUB#${event}#`,
  subscription: (site: string, event: EventName, functionId: number) => ({
    PK: eventKeys.subscriptions(site),
    SK: `SUB#${event}#FN#${pad(functionId)}`,
  }),
} as const;
