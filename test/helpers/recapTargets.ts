// recap's own files, named once for every agent's attack suite: whatever wires recap into an
// agent, none of these may be changed by the agent's tools, and most not even read.
import { dirname, join } from 'node:path';
import type { Sandbox } from './daemon.js';
import { HOOK } from './gateAttack.js';
import { launcherOf, type AgentAttack } from './agentAttack.js';

/** A file an attack aims at, by the name its test is given. */
export type Target = [name: string, path: string];

export const eventLog = (box: Sandbox): string => join(box.data, 'log', '000001.jsonl');
/** Where the hook's fallback reads the gate from when the daemon does not answer. */
export const verdictFile = (box: Sandbox): string => join(dirname(box.socket), 'verdicts.json');
export const projectConfig = (box: Sandbox): string => join(box.project, '.recap', 'config.conf');

/** recap's own files, the same for every agent. */
export function recapTargets(a: AgentAttack): Target[] {
  const { box } = a;
  return [
    ['the event log', eventLog(box)],
    ['the launcher', launcherOf(a)],
    ['the verdict file', verdictFile(box)],
    ['the socket', box.socket],
    ['the user config', box.config],
    ["the project's .recap config", projectConfig(box)],
    ['the hook bundle', HOOK],
  ];
}
