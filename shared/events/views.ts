import type { App } from '../accounts/model';
import type { RegisteredFunction, Subscription } from './model';

/** Response shapes of the events group: `{success, message, data}` and the spec's subscriber fields. */

export const success = (message: string, data: unknown) => ({ success: true, message, data });

export function functionView(fn: RegisteredFunction) {
  const { site: _site, ...view } = fn;
  return view;
}

/** The spec's event subscriber. */
export function subscriberView(s: Subscription) {
  return {
    id: s.id,
    event: s.event,
    function: s.function_id,
    function_name: s.function_name,
    function_slug: s.function_slug,
    app_name: s.app_name,
    app_slug: s.app_slug,
    created_at: s.created_at,
    updated_at: s.updated_at,
  };
}

/** One subscriber of an app's event listing. */
export function appSubscriberView(s: Subscription) {
  return {
    subscriber_id: s.id,
    event: s.event,
    function_id: s.function_id,
    function_name: s.function_name,
    function_slug: s.function_slug,
    app_id: s.app_id,
    app_name: s.app_name,
    app_slug: s.app_slug,
    created_at: s.created_at,
  };
}

export const appRef = (app: App) => ({ id: app.id, name: app.name, slug: app.slug });
