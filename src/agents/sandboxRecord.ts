// What `recap install <agent> --sandbox` added to an agent's config file, kept in recap's data
// folder (which the sandbox keeps the agent's shell out of): uninstall takes out exactly
// that, and a value or path the user had set before stays theirs.
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { dataDir } from '../common/paths.js';
import { writeWhole } from '../common/wholeFile.js';
import { readJsonObject } from './kit/jsonFile.js';

/** The keys recap set (dotted, as the agent's file nests them) and the paths it listed. */
export type SandboxAdded = { keys: string[]; paths: Record<string, string[]> };

type Records = Record<string, SandboxAdded>;

const recordFile = (env: NodeJS.ProcessEnv): string => join(dataDir(env), 'sandboxes.json');

function readRecords(env: NodeJS.ProcessEnv): Records {
  const read = readJsonObject(recordFile(env));
  // None, or a broken record: recap then removes nothing it cannot name, and the sandbox stays.
  return read?.ok ? (read.value as Records) : {};
}

/** What recap added to `file`, if it added anything. */
export function sandboxAdded(env: NodeJS.ProcessEnv, file: string): SandboxAdded | undefined {
  const found = readRecords(env)[file];
  return found !== undefined && Array.isArray(found.keys) && found.paths !== null && typeof found.paths === 'object' ? found : undefined;
}

/** Records what recap added to `file` (undefined: nothing any more), through a temporary file and a rename. */
export function recordSandbox(env: NodeJS.ProcessEnv, file: string, added: SandboxAdded | undefined): void {
  const records = readRecords(env);
  if (added === undefined) delete records[file];
  else records[file] = added;
  const target = recordFile(env);
  mkdirSync(dirname(target), { recursive: true, mode: 0o700 });
  writeWhole(target, `${JSON.stringify(records, null, 2)}\n`, { mode: 0o600 });
}
