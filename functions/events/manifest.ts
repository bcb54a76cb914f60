import { defineGroup, tableReads } from '../../shared/api/group';
import { eventRoutes } from '../../shared/events/routes';

/** The events endpoint group: the event functions registry and subscriptions. */
export const eventsManifest = defineGroup({
  name: 'events',
  description: 'Event functions registry and subscriptions (PRE/POST_USER_CREATE)',
  envelope: 'events',
  routes: eventRoutes,
  needs: {
    // Functions and subscriptions: conditional puts, transactions (function, slug, subscriptions), deletes.
    table: [...tableReads, 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'],
    registersEventFunctions: true,
  },
});
