import { ensureBootstrapAdmin } from '../shared/accounts/bootstrap';
import { findUserByLogin, updateUser } from '../shared/accounts/users';
import { buildDeps } from '../shared/compose/build-deps';
import { loadConfig } from '../shared/config';

/**
 * `npm run create-superuser`: creates the first superuser of a deployment (or promotes an existing user) in the
 * table named by TABLE_NAME, with the AWS credentials of the shell. Reads ADMIN_EMAIL and ADMIN_PASSWORD; prints a
 * generated password once when ADMIN_PASSWORD is not set. Repairs an install whose first start was killed before
 * its superuser existed (a bootstrap marker without its user): it creates the superuser then.
 */
const config = loadConfig();
const deps = buildDeps(config);
// A refused ADMIN_PASSWORD is the operator's to fix: say why, without a stack trace.
const created = await ensureBootstrapAdmin(deps, {
  email: config.adminEmail,
  password: config.adminPassword,
}).catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
if (created) {
  process.stdout.write(`Created superuser ${created.user.username} <${created.user.email}>\n`);
  if (created.generated) process.stdout.write(`Generated password (shown once): ${created.password}\n`);
} else if (config.adminEmail) {
  const user = await findUserByLogin(deps.store, config.adminEmail);
  if (!user) {
    process.stderr.write(`The first superuser exists already; no user ${config.adminEmail} to promote.\n`);
    process.exit(1);
  }
  await updateUser(deps, user.id, { is_superuser: true, is_active: true });
  process.stdout.write(`Promoted ${user.username} to superuser.\n`);
} else {
  process.stdout.write('The first superuser exists already.\n');
}
