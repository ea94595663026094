import { describe, expect, it } from 'vitest';
import { findSecrets } from '../../src/daemon/secretScanner.js';
import { replaceSecrets, secretKind, type SecretFinding } from '../../src/events/secrets.js';
import { SECRETS } from '../helpers/secrets.js';

/** What recap stores of `text`: secretlint's findings applied by the pure module. */
async function stored(text: string) {
  return replaceSecrets(text, await findSecrets(text));
}

describe('secrets replaced by the kind of secret they are', () => {
  it('replaces an AWS access key and its secret key, whose rule reports a range off the value', async () => {
    const { text, secrets } = await stored(`aws_access_key_id = ${SECRETS.awsAccessKey}\naws_secret_access_key = ${SECRETS.awsSecretKey}\nthen deploy`);
    expect(text).not.toContain(SECRETS.awsAccessKey);
    expect(text).not.toContain(SECRETS.awsSecretKey.slice(-12));
    expect(text).toContain('[secret: AWS access key]');
    expect(text).toContain('[secret: AWS secret access key]');
    expect(text).toMatch(/then deploy$/);
    expect(secrets).toEqual([
      { kind: 'AWS access key', count: 1 },
      { kind: 'AWS secret access key', count: 1 },
    ]);
  });

  it('replaces a GitHub token', async () => {
    const { text, secrets } = await stored(`use ${SECRETS.githubToken} for the push`);
    expect(text).toBe('use [secret: GitHub token] for the push');
    expect(secrets).toEqual([{ kind: 'GitHub token', count: 1 }]);
  });

  it('replaces a PEM private key block whole', async () => {
    const { text } = await stored(`the key:\n${SECRETS.privateKey}\nend`);
    expect(text).toBe('the key:\n[secret: private key]\nend');
  });

  it('replaces a URL that carries a password', async () => {
    const { text, secrets } = await stored(`clone https://deploy:${SECRETS.urlPassword}@git.example.com/repo.git now`);
    expect(text).not.toContain(SECRETS.urlPassword);
    expect(secrets).toEqual([{ kind: 'password in URL', count: 1 }]);
  });

  it('replaces a password in a database URL', async () => {
    const { text, secrets } = await stored(`DATABASE_URL=postgres://app:${SECRETS.urlPassword}@db.internal:5432/app`);
    expect(text).not.toContain(SECRETS.urlPassword);
    expect(secrets).toEqual([{ kind: 'password in database URL', count: 1 }]);
  });

  it('replaces a Slack token', async () => {
    const { text, secrets } = await stored(`slack ${SECRETS.slackToken} for alerts`);
    expect(text).toBe('slack [secret: Slack token] for alerts');
    expect(secrets).toEqual([{ kind: 'Slack token', count: 1 }]);
  });

  it('replaces every place a secret occurs, not only where the rule reported it', () => {
    const finding: SecretFinding = { rule: '@secretlint/secretlint-rule-github', messageId: 'GITHUB_TOKEN', values: [SECRETS.githubToken] };
    const { text, secrets } = replaceSecrets(`${SECRETS.githubToken} and again ${SECRETS.githubToken}`, [finding]);
    expect(text).toBe('[secret: GitHub token] and again [secret: GitHub token]');
    expect(secrets).toEqual([{ kind: 'GitHub token', count: 1 }]);
  });

  it('counts no secret whose value is not in the text stored (cut out after the scan)', () => {
    const finding: SecretFinding = { rule: '@secretlint/secretlint-rule-github', messageId: 'GITHUB_TOKEN', values: [SECRETS.githubToken] };
    expect(replaceSecrets('nothing here', [finding])).toEqual({ text: 'nothing here', secrets: [] });
  });

  it('names a kind it has no name for by its rule', () => {
    expect(secretKind('@secretlint/secretlint-rule-figma', 'FIGMA_TOKEN')).toBe('figma secret');
  });
});

describe('the scanner in a long-running daemon', () => {
  it('leaves no performance mark behind, scan after scan (secretlint profiler keeps every one)', async () => {
    for (let i = 0; i < 20; i += 1) await findSecrets(`scan ${i}: ${SECRETS.githubToken}`);
    await new Promise((resolve) => setImmediate(resolve));
    expect(performance.getEntriesByType('mark')).toEqual([]);
  });
});

describe('ordinary text kept as it is', () => {
  it('leaves a sha256, a UUID, a git commit id and code alone', async () => {
    const text = [
      'sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
      'id 123e4567-e89b-12d3-a456-426614174000, commit 9f7a509c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a',
      "const url = `https://${host}:${port}/api`; const password = process.env.DB_PASSWORD ?? '';",
      'https://github.com/secretlint/secretlint#readme',
    ].join('\n');
    expect(await stored(text)).toEqual({ text, secrets: [] });
  });
});
