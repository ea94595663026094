// What a hook's answer told the agent, whatever its dialect: the hook duration metric's
// `decision`. Each adapter renders a deny its own way (facts.ts); this reads them all.
import type { HookAnswer } from '../../agents/facts.js';

export type HookDecision = 'deny' | 'allow';

export function hookDecision(answer: HookAnswer): HookDecision {
  if (answer.exitCode === 2) return 'deny';
  if (!answer.stdout.startsWith('{')) return 'allow';
  let said: unknown;
  try {
    said = JSON.parse(answer.stdout);
  } catch {
    return 'allow';
  }
  return says(said) || says((said as { hookSpecificOutput?: unknown }).hookSpecificOutput) ? 'deny' : 'allow';
}

function says(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const { permissionDecision, decision, deny } = value as Record<string, unknown>;
  return permissionDecision === 'deny' || decision === 'deny' || decision === 'block' || typeof deny === 'string';
}
