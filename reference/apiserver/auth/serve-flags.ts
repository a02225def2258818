// `serve --token-auth-file`, `--authorization-mode` and `--anonymous-auth` (upstream kube-apiserver's
// flags of the same names) to the reference's `auth` option. No flag given: no `auth` at all, so the
// server behaves exactly as without authentication.
import { readTokenFile, TokenFileError, type TokenFileWarn } from './token-file.js';
import { AUTHORIZATION_MODES, type AuthOptions } from './filter.js';
import type { AuthorizationMode } from './authorizer.js';

export class AuthFlagError extends Error {}

/** `warn` receives what upstream only logs about the token file (an empty or a repeated token). */
export function authFromFlags(
  argv: { tokenAuthFile?: string; authorizationMode?: string; anonymousAuth?: boolean },
  warn: TokenFileWarn = (m) => process.stderr.write(`serve: warning: --token-auth-file: ${m}\n`),
): AuthOptions | undefined {
  const mode = argv.authorizationMode;
  if (mode !== undefined && !(AUTHORIZATION_MODES as readonly string[]).includes(mode)) {
    throw new AuthFlagError(`--authorization-mode ${mode}: want one of ${AUTHORIZATION_MODES.join(', ')}`);
  }
  if (argv.tokenAuthFile === undefined && mode === undefined && argv.anonymousAuth !== false) return undefined;
  let tokens: AuthOptions['tokens'] = [];
  if (argv.tokenAuthFile !== undefined) {
    try {
      tokens = readTokenFile(argv.tokenAuthFile, warn);
    } catch (err) {
      if (err instanceof TokenFileError) throw new AuthFlagError(`--token-auth-file: ${err.message}`);
      throw err;
    }
  }
  return { tokens, authorizationMode: (mode ?? 'AlwaysAllow') as AuthorizationMode, anonymous: argv.anonymousAuth !== false };
}
