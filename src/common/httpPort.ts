// The HTTP hook endpoint's port: each user's own, chosen free at install and kept beside the
// token in the data folder, so two users of one machine never reach for the same one.
// Node built-ins only.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dataDir } from './paths.js';

type Env = NodeJS.ProcessEnv;

export function httpPortFile(env: Env = process.env): string {
  return join(dataDir(env), 'http-port');
}

/** The audit page's port (`recap ui`), kept the same way so its address stays the same. */
export function uiPortFile(env: Env = process.env): string {
  return join(dataDir(env), 'ui-port');
}

/** The port RECAP_HTTP_PORT asks for, if it names one; else the kept one (or a free one) is used. */
export function httpPort(env: Env = process.env): number | undefined {
  return portIn(env.RECAP_HTTP_PORT);
}

/** The port RECAP_UI_PORT asks the audit page to use, if it names one. */
export function uiPort(env: Env = process.env): number | undefined {
  return portIn(env.RECAP_UI_PORT);
}

function portIn(text: string | undefined): number | undefined {
  const port = Number(text);
  return text !== undefined && text !== '' && Number.isInteger(port) && port > 0 && port < 65_536 ? port : undefined;
}

/** The port the endpoint took last, if one is on record. */
export function keptPort(file: string): number | undefined {
  try {
    const port = Number(readFileSync(file, 'utf8').trim());
    return Number.isInteger(port) && port > 0 && port < 65_536 ? port : undefined;
  } catch {
    return undefined;
  }
}

export function keepPort(file: string, port: number): void {
  if (keptPort(file) !== port) writeFileSync(file, `${port}\n`, { mode: 0o600 });
}
