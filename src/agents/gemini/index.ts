// Gemini CLI behind recap's adapter seam.
import type { Adapter } from '../adapter.js';
import { geminiMcp } from './mcp.js';
import { geminiDoctor } from './doctor.js';
import { geminiFacts } from './facts.js';
import { parseGeminiHook } from './hook.js';
import { installExtension, uninstallExtension } from './install.js';
import { geminiUsageOf } from './transcript.js';

export const gemini: Adapter = {
  mcp: geminiMcp,
  facts: geminiFacts,
  parse: parseGeminiHook,
  transcriptUsage: geminiUsageOf,
  // The hook, not the shell, runs a whitelisted recap command. Gemini CLI's shell carries no
  // session id, so a submit run there would land in its folder's job (not the session's
  // under JOB_SCOPE=session, nor when dir_path is another project); and a trusted project's
  // .env reaches that shell (LD_PRELOAD, NODE_OPTIONS), so while the gate is tripped nothing
  // runs in it at all.
  wayOutInHook: true,
  // Its sandbox (tools.sandbox, GEMINI_SANDBOX) is a container its hooks run inside, away from recap's daemon.
  sandbox: {
    unsupported:
      "Gemini CLI's sandbox is a container that its hooks run inside too, where recap's socket and files are not, so recap cannot gate a sandboxed Gemini CLI; leave out --sandbox (and keep tools.sandbox off)",
  },
  install: (options) => installExtension(options),
  uninstall: uninstallExtension,
  doctor: geminiDoctor,
};
