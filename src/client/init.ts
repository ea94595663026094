// `recap init`: marks a project for SCOPE=marked by making its `.recap/` folder, with a short
// README that says what the folder is and how to undo it. Running it again changes nothing.
import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { UserError } from '../common/errors.js';

const README = `This folder marks the project for recap: with SCOPE=marked (or RECAP_SCOPE=marked),
recap counts, records and gates only in projects that have it. A project config may go
beside this file as config.conf (docs/configuration.md).

Removing the folder unmarks the project for jobs recap holds nothing of; a job it has
recorded stays gated.
`;

export type Marked = { folder: string; created: string[] };

/** Makes `<project>/.recap/` and its README where missing: what was made (none when it all was there). */
export function markProject(project: string): Marked {
  const folder = join(project, '.recap');
  if (existsSync(folder) && !statSync(folder).isDirectory()) throw new UserError(`${folder} is a file, not a folder: move it aside, then run recap init again`);
  const created: string[] = [];
  if (!existsSync(folder)) {
    mkdirSync(folder, { mode: 0o755 });
    created.push(folder);
  }
  const readme = join(folder, 'README');
  if (!existsSync(readme)) {
    writeFileSync(readme, README, { flag: 'wx' });
    created.push(readme);
  }
  return { folder, created };
}
