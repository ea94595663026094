// Finds the secrets in a text with secretlint's recommended rules (the decision of what to
// do with them is events/secrets.ts). Loaded on the first text, not at the daemon's start:
// the rules are some 650 kB of code that a tool call never needs.
import type { SecretLintCoreConfig } from '@secretlint/types';
import type { SecretFinding } from '../events/secrets.js';

type Scan = (text: string) => Promise<SecretFinding[]>;

let loaded: Promise<Scan> | undefined;

async function load(): Promise<Scan> {
  const [{ lintSource }, { creator }, { secretLintProfiler }] = await Promise.all([
    import('@secretlint/core'),
    import('@secretlint/secretlint-rule-preset-recommend'),
    import('@secretlint/profiler'),
  ]);
  // secretlint's profiler keeps every performance mark it makes, and looks through them all
  // at each: in a daemon that scans every prompt, memory that grows and scans that slow down.
  // recap reads no profile, so its marks are not made.
  secretLintProfiler.mark = () => undefined;
  const config: SecretLintCoreConfig = {
    rules: [
      {
        id: creator.meta.id,
        rule: creator,
        rules: [
          // An access key id alone is a secret to recap: the rule looks for it only when asked.
          { id: '@secretlint/secretlint-rule-aws', options: { enableIDScanRule: true } },
          // A `secretlint-disable` comment in a text must not keep its secrets in the log.
          { id: '@secretlint/secretlint-rule-filter-comments', disabled: true },
        ],
      },
    ],
  };
  return async (text) => {
    const result = await lintSource({ source: { content: text, filePath: 'text', contentType: 'text' }, options: { config, noPhysicFilePath: true } });
    return result.messages.map((m) => ({
      rule: m.ruleId,
      messageId: m.messageId,
      // The reported range, and the values its message names: some rules' ranges miss the value.
      values: [text.slice(m.range[0], m.range[1]), ...Object.values(m.data ?? {}).filter((v): v is string => typeof v === 'string')],
    }));
  };
}

/** The secrets secretlint's recommended rules find in `text`. */
export async function findSecrets(text: string): Promise<SecretFinding[]> {
  // A load that failed (an upgrade under a running daemon) is tried again on the next text:
  // kept, its failure would refuse every prompt and summary until a restart.
  loaded ??= load().catch((error: unknown) => {
    loaded = undefined;
    throw error;
  });
  return (await loaded)(text);
}
