// Every agent's adapter, by the name `recap install` and `recap-hook` take (known.ts lists
// the same names with their light half, for recap-hook).
import type { Adapter } from './adapter.js';
import { claude } from './claude/index.js';
import { codex } from './codex/index.js';
import { copilot } from './copilot/index.js';
import { gemini } from './gemini/index.js';
import type { AgentName } from './known.js';
import { opencode } from './opencode/index.js';
import { qwen } from './qwen/index.js';

export const ADAPTERS: Record<AgentName, Adapter> = {
  claude,
  codex,
  gemini,
  qwen,
  copilot,
  opencode,
};
