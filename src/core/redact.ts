/**
 * What may be shown of a registry's text: receipts, notes, doctor, MCP and CLI output quote registry
 * errors, and a registry URL may carry credentials (`https://user:token@host/`, `?token=…`) or a
 * token npm expanded from `${NPM_TOKEN}`. Every URL loses its userinfo, query and fragment; every
 * `key=value` whose key names a credential loses its value; every value given as secret is masked.
 */

const MASK = '***';
/** Secret values shorter than this are not masked in running text (they would mask ordinary words). */
const MIN_SECRET_CHARS = 6;

const URL_PATTERN = /\b([a-z][a-z0-9+.-]*:\/\/)([^\s/?#@]*@)?([^\s?#]*)(\?[^\s#]*)?(#\S*)?/gi;
const CREDENTIAL_PATTERN = /((?:_auth(?:Token)?|_password|password|token|authorization|secret)["']?\s*[:=]\s*)(?:"[^"]*"|'[^']*'|(?:Bearer|Basic)\s+\S+|\S+)/gi;

/** `text` without credentials: see the module comment. `secrets` are values known to be secret (expanded environment variables). */
export function redactSecrets(text: string, secrets: readonly string[] = []): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length >= MIN_SECRET_CHARS) out = out.split(secret).join(MASK);
  }
  out = out.replace(URL_PATTERN, (_match, scheme: string, _userinfo: unknown, rest: string) => `${scheme}${rest}`);
  return out.replace(CREDENTIAL_PATTERN, (_match, key: string) => `${key}${MASK}`);
}
