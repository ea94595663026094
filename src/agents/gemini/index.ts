// Gemini CLI behind recap's adapter seam.
import type { Adapter } from '../adapter.js';
import { geminiDoctor } from './doctor.js';
import { geminiFacts } from './facts.js';
import { parseGeminiHook } from './hook.js';
import { installExtension, uninstallExtension } from './install.js';
import { geminiUsageOf } from './transcript.js';

export const gemini: Adapter = {
  facts: geminiFacts,
  parse: parseGeminiHook,
  transcriptUsage: geminiUsageOf,
  // The hook, not the shell, runs a whitelisted recap command. Gemini CLI's shell carries no
  // session id, so a submit run there would land in its folder's job (not the session's
  // under JOB_SCOPE=session, nor when dir_path is another project); and a trusted project's
  // .env reaches that shell (LD_PRELOAD, NODE_OPTIONS), so while the gate is tripped nothing
  // runs in it at all.
  wayOutInHook: true,
  install: (options) => installExtension(options),
  uninstall: uninstallExtension,
  doctor: geminiDoctor,
};
