import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { groups, routesOf } from '../functions/groups';
import { validatorFiles, validatorsDirectory } from '../infra/validators';

/** `npm run validators`: writes each group's route validators, generated ahead of time (infra/validators.ts). */
for (const group of Object.values(groups)) {
  const directory = validatorsDirectory(group.name);
  // Written afresh: a renamed or removed route leaves no module behind.
  rmSync(directory, { recursive: true, force: true });
  mkdirSync(directory, { recursive: true });
  const files = await validatorFiles(group.name, routesOf(group.name));
  for (const [file, source] of files) writeFileSync(join(directory, file), source);
  process.stdout.write(`${directory}/ (${files.size} files)\n`);
}
