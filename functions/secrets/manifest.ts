import { defineGroup, tableReads, tableWrites } from '../../shared/api/group';
import { secretRoutes } from '../../shared/secrets/routes';

/** The secrets endpoint group: the secret store. */
export const secretsManifest = defineGroup({
  name: 'secrets',
  description: 'The secret store: secret types, secrets (envelope-encrypted) and tags',
  envelope: 'secrets',
  routes: secretRoutes,
  needs: {
    // Secret types, secrets, tags and history: transactions with condition checks (type use counts), deletes.
    table: [...tableReads, ...tableWrites],
    // Makes and unwraps the data keys of every secret store context (not the social apps').
    secretsKey: 'store',
  },
});
