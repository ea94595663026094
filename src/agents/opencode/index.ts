// opencode behind recap's adapter seam: a plugin in opencode's own runtime, not command hooks.
import type { Adapter } from '../adapter.js';
import { opencodeMcp } from './mcp.js';
import { opencodeDoctor } from './doctor.js';
import { opencodeFacts } from './facts.js';
import { parseOpencodeHook } from './hook.js';
import { installPlugin, uninstallPlugin } from './install.js';

export const opencode: Adapter = {
  mcp: opencodeMcp,
  facts: opencodeFacts,
  parse: parseOpencodeHook,
  sandbox: { unsupported: "opencode has no OS sandbox recap can configure; leave out --sandbox (recap's plugin still judges every tool call)" },
  // No transcript: opencode keeps its sessions in SQLite, and the plugin reads no usage.
  // No http: the plugin speaks to the daemon's socket itself. The way out runs in opencode's
  // bash tool, which reaches the daemon and carries the session (shell.env).
  install: installPlugin,
  uninstall: uninstallPlugin,
  doctor: opencodeDoctor,
};
