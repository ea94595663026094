// `recap statusline`: a status-line command for Claude Code, which runs it with the session's
// status as JSON on stdin. It shows the gate (`recap 312/500`, or `recap: summary needed`)
// and tells the daemon the window of the session's model, which Claude Code tells no hook.
// It runs every few seconds beside the user's typing: it never starts the daemon, never
// fails, and with --with runs the user's own status-line command on the same input first.
import { spawnSync } from 'node:child_process';
import { socketPath } from '../common/paths.js';
import { parseJson } from '../common/json.js';
import { Client } from './socketClient.js';

const CONNECT_MS = 500;
const THEIRS_MS = 5000;

type Input = { session_id?: unknown; cwd?: unknown; workspace?: { current_dir?: unknown }; context_window?: { context_window_size?: unknown } };

/** The line to print for this input: the user's own status line first, when `theirs` names one. */
export async function statusline(raw: string, theirs: string | undefined, env: NodeJS.ProcessEnv): Promise<string> {
  const ours = await gateText(raw, env);
  if (theirs === undefined || theirs === '') return ours;
  const run = spawnSync('/bin/sh', ['-c', theirs], { input: raw, encoding: 'utf8', timeout: THEIRS_MS, env });
  const line = (run.stdout ?? '').trimEnd();
  return line === '' ? ours : `${line} | ${ours}`;
}

async function gateText(raw: string, env: NodeJS.ProcessEnv): Promise<string> {
  let input: Input = {};
  try {
    const parsed = parseJson(raw);
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) input = parsed as Input;
  } catch {
    // No status input (run by hand): the folder's job.
  }
  const session = typeof input.session_id === 'string' && input.session_id.length <= 256 ? input.session_id : undefined;
  const cwd = [input.workspace?.current_dir, input.cwd].find((d): d is string => typeof d === 'string' && d.startsWith('/')) ?? process.cwd();
  const size = input.context_window?.context_window_size;
  const contextWindow = typeof size === 'number' && Number.isSafeInteger(size) && size > 0 ? size : undefined;
  let client: Client | undefined;
  try {
    client = await Client.connect(socketPath(env), CONNECT_MS);
    const status = await client.request('statusline', {
      cwd,
      ...(session !== undefined ? { session } : {}),
      ...(contextWindow !== undefined ? { contextWindow } : {}),
    });
    return status.tripped ? 'recap: summary needed' : `recap ${status.unsummarizedTokens}/${status.threshold}`;
  } catch {
    return 'recap: not running';
  } finally {
    client?.close();
  }
}
