import { defineGroup, tableReads } from '../../shared/api/group';
import { pageRoutes } from '../../shared/pages/routes';

/** The pages endpoint group: the hosted pages. */
export const pagesManifest = defineGroup({
  name: 'pages',
  description: 'Hosted pages: invitation, sign-in, provider callback and account (HTML over the public API)',
  envelope: 'detail',
  routes: pageRoutes,
  needs: {
    // Hosted pages: they read through the public routes in-process (pages/api.ts): the invitation details (whose
    // failure windows are Put, Update and Delete), the social app list, the signed-in user and its links.
    table: [...tableReads, 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'],
  },
});
