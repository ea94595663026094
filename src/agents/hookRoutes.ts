// The agents whose hooks can post to the daemon's HTTP endpoint (`recap install <agent>
// --http` writes `type: "http"` hooks to POST /hooks/<agent>), named here so that nothing
// outside src/agents names an agent. Adding one is a line here, once its installer writes
// such hooks and its answers mean the same in an HTTP body as on stdout.
import type { AgentName } from './known.js';

/** The agent `recap install <agent> --http` is for: its endpoint comes back with the daemon. */
export const HTTP_HOOK_AGENT = 'claude' satisfies AgentName;

/** Every agent the HTTP endpoint answers, each at its own path. */
export const HTTP_HOOK_AGENTS: readonly AgentName[] = [HTTP_HOOK_AGENT];
