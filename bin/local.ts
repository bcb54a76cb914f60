import { operationsByGroup } from '../functions/registry';
import { startLocalPlatform } from '../shared/adapters/local/runtime';
import { loadConfig } from '../shared/config';

/** `npm start`: the whole platform on this machine, on embedded stores, data under DATA_DIR. */
const config = loadConfig();
const platform = await startLocalPlatform(config, operationsByGroup);
const out = (line = '') => process.stdout.write(`${line}\n`);

out(`Platform listening on ${platform.baseUrl}  (data in ${config.dataDir}/)`);
if (platform.admin) {
  out();
  out('Created the first superuser (shown once):');
  out(`  username: ${platform.admin.user.username}   e-mail: ${platform.admin.user.email}`);
  if (platform.admin.generated) out(`  password: ${platform.admin.password}`);
  else out('  password: the value of ADMIN_PASSWORD');
}
out();
out('Try:');
out(
  `  curl -s -X POST ${platform.baseUrl}/api/auth/jwt/token/ -H 'content-type: application/json' \\\n` +
    `       -d '{"username": "admin", "password": "<password>"}'`,
);
out(`  curl -s ${platform.baseUrl}/api/cloud/users/me/ -H 'authorization: Bearer <access>'`);

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, async () => {
    if (stopping) return;
    stopping = true;
    await platform.stop();
    process.exit(0);
  });
}
