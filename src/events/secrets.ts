// Secrets in a text recap stores (a prompt, a Q&A, a summary) are replaced by a marker naming
// their kind, `[secret: GitHub token]`, before the text is written. Which strings are secrets
// is found at the edge by secretlint's rules (daemon/secretScanner.ts: its API is async); here
// is what is done with its findings, by value rather than by position: every place a secret's
// value occurs is replaced, so a rule that reports a position off its value, a secret repeated
// in the text, or a text cut down after the scan (its private parts) leave nothing behind.

/** One secret a rule found: the rule's id, its message's id, and the strings that are the secret. */
export type SecretFinding = { rule: string; messageId: string; values: string[] };

/** How many secrets of one kind a text had: stored in its event, with no value. */
export type SecretTally = { kind: string; count: number };

/** Shorter strings are not replaced wherever they occur: a rule's value is a key, not a word. */
const MIN_VALUE = 8;

/** A kind named by the message, where a rule reports more than one (secretlint-rule-aws). */
const BY_MESSAGE: Record<string, string> = {
  AWSAccessKeyID: 'AWS access key',
  AWSSecretAccessKey: 'AWS secret access key',
  AWSAccountID: 'AWS account ID',
};

/** A kind named by the rule: secretlint's `@secretlint/secretlint-rule-<name>`. */
const BY_RULE: Record<string, string> = {
  aws: 'AWS key',
  gcp: 'GCP key',
  npm: 'npm token',
  slack: 'Slack token',
  basicauth: 'password in URL',
  openai: 'OpenAI key',
  anthropic: 'Anthropic key',
  privatekey: 'private key',
  sendgrid: 'SendGrid key',
  stripe: 'Stripe key',
  github: 'GitHub token',
  gitlab: 'GitLab token',
  'database-connection-string': 'password in database URL',
  'hashicorp-vault': 'Vault token',
  '1password': '1Password token',
};

/** The kind a marker names: by the message, then the rule, then the rule's own name. */
export function secretKind(rule: string, messageId: string): string {
  const name = rule.replace(/^@secretlint\/secretlint-rule-/, '');
  return BY_MESSAGE[messageId] ?? BY_RULE[name] ?? `${name} secret`;
}

export const secretMarker = (kind: string): string => `[secret: ${kind}]`;

type Span = { start: number; end: number; kind: string };

/** Every place in `text` one of the finding's values occurs. */
function spansOf(text: string, finding: SecretFinding): Span[] {
  const kind = secretKind(finding.rule, finding.messageId);
  const spans: Span[] = [];
  for (const value of new Set(finding.values)) {
    if (value.length < MIN_VALUE) continue;
    for (let at = text.indexOf(value); at !== -1; at = text.indexOf(value, at + value.length)) spans.push({ start: at, end: at + value.length, kind });
  }
  return spans;
}

/**
 * The text with every secret replaced by its marker, and how many of each kind it held (a
 * finding none of whose values is in the text, as one in a part cut out after the scan, is
 * not counted). Overlapping secrets make one marker, of the kind of the one that starts first.
 */
export function replaceSecrets(text: string, findings: readonly SecretFinding[]): { text: string; secrets: SecretTally[] } {
  if (findings.length === 0) return { text, secrets: [] };
  const counts = new Map<string, number>();
  const spans: Span[] = [];
  for (const finding of findings) {
    const found = spansOf(text, finding);
    if (found.length === 0) continue;
    spans.push(...found);
    counts.set(found[0]!.kind, (counts.get(found[0]!.kind) ?? 0) + 1);
  }
  spans.sort((a, b) => a.start - b.start || b.end - a.end);
  let out = '';
  let at = 0;
  for (let i = 0; i < spans.length;) {
    const first = spans[i]!;
    let end = first.end;
    for (i += 1; i < spans.length && spans[i]!.start < end; i += 1) end = Math.max(end, spans[i]!.end);
    out += text.slice(at, first.start) + secretMarker(first.kind);
    at = end;
  }
  return { text: out + text.slice(at), secrets: [...counts].map(([kind, count]) => ({ kind, count })) };
}

/** Tallies added up, kind by kind (a job's, every job's). */
export function addTallies(into: Map<string, number>, tallies: readonly SecretTally[] | undefined): void {
  for (const { kind, count } of tallies ?? []) into.set(kind, (into.get(kind) ?? 0) + count);
}
