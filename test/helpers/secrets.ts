// Secrets shaped as the real ones are, made up and put together from pieces at run time, so
// that no scanner finds one in recap's own source.
const join = (...pieces: string[]) => pieces.join('');

export const SECRETS = {
  awsAccessKey: join('AK', 'IA', 'QWERTYUIOP', 'ASDFGH'),
  awsSecretKey: join('wJalrXUtnFEMI/K7MDENG/', 'bPxRfiCY', 'ABCDEFGHIJ'),
  githubToken: join('gh', 'p_', 'A1b2C3d4E5f6G7h8I9j0', 'K1l2M3n4O5p6Q7r8'),
  privateKey: join(
    '-----BEGIN RSA ',
    'PRIVATE KEY-----\n',
    'MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\n',
    'VTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK\n',
    '-----END RSA ',
    'PRIVATE KEY-----',
  ),
  urlPassword: join('pa55', 'word', 'Secret'),
  slackToken: join('xo', 'xb-', '123456789012-1234567890123-', 'AbCdEfGhIjKlMnOpQrStUvWx'),
};

/** A prompt that holds an AWS key and its secret, a GitHub token and a private key. */
export function promptWithSecrets(): string {
  return [
    'Deploy with these credentials, then rotate them:',
    `aws_access_key_id = ${SECRETS.awsAccessKey}`,
    `aws_secret_access_key = ${SECRETS.awsSecretKey}`,
    `The CI token is ${SECRETS.githubToken} and the deploy key:`,
    SECRETS.privateKey,
  ].join('\n');
}
