import { defineGroup, tableReads } from '../../shared/api/group';
import { eventRoutes } from '../../shared/events/routes';
import { webhookRoutes } from '../../shared/webhooks/routes';

/** The events endpoint group: the event functions registry and subscriptions. */
export const eventsManifest = defineGroup({
  name: 'events',
  description:
    'Event functions registry and subscriptions (PRE/POST_USER_CREATE); webhook endpoints of record events',
  envelope: 'events',
  routes: [...eventRoutes, ...webhookRoutes],
  needs: {
    // Functions and subscriptions: conditional puts, transactions (function, slug, subscriptions), deletes.
    table: [...tableReads, 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'],
    registersEventFunctions: true,
    // Webhook endpoints live in PostgreSQL beside the record events' outbox; their signing secrets are sealed.
    sql: 'app',
    secretsKey: 'webhooks',
  },
});
