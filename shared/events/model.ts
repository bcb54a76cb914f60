/** The events domain: registered functions, subscriptions and the user-creation events (docs/events.md). */

/** The event types, exact values. */
export const eventNames = ['PRE_USER_CREATE', 'POST_USER_CREATE'] as const;
export type EventName = (typeof eventNames)[number];

export const isEventName = (name: string): name is EventName =>
  (eventNames as readonly string[]).includes(name);

/** A function registered in an app: a Lambda ARN in the cloud, a module inside the functions directory locally. */
export interface RegisteredFunction {
  id: number;
  name: string;
  slug: string;
  target: string;
  app_id: number;
  app_slug: string;
  app_name: string;
  site: string;
  created_at: string;
  updated_at: string;
}

/** One (event, function) subscription; it carries what a publish needs, so one query finds every subscriber. */
export interface Subscription {
  id: number;
  event: EventName;
  function_id: number;
  function_name: string;
  function_slug: string;
  target: string;
  app_id: number;
  app_name: string;
  app_slug: string;
  site: string;
  created_at: string;
  updated_at: string;
}
