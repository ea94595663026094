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
  install: (options) => installExtension(options),
  uninstall: uninstallExtension,
  doctor: geminiDoctor,
};
