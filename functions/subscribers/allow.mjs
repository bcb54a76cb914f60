/**
 * Example subscriber that accepts every user. A subscriber is a module exporting `handler(event, context)`, the
 * Lambda signature, so the same file runs on the local runner and, deployed as a Lambda function, in the cloud.
 * `event` is `{event, function_id, task_id, data}`: `data` is the proposed user (PRE_USER_CREATE) or the saved one
 * with its id (POST_USER_CREATE). Returning accepts; throwing refuses (docs/events.md).
 */
export async function handler(event) {
  return { allowed: true, event: event.event, email: event.data?.email };
}
