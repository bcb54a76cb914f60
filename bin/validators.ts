import { writeFileSync } from 'node:fs';
import { validatorsPath, validatorsSource } from '../infra/validators';
import { groups, routesOf } from '../shared/http/routes';

/** `npm run validators`: writes each group's route validators, generated ahead of time (infra/validators.ts). */
for (const group of Object.values(groups)) {
  const path = validatorsPath(group.name);
  writeFileSync(path, await validatorsSource(group.name, routesOf(group.name)));
  process.stdout.write(`${path}\n`);
}
