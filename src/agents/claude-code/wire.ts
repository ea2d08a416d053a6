/**
 * The names Claude Code's http hook and formatbox's daemon agree on: the path the hook POSTs to on
 * the daemon's loopback port, and the environment variable its Authorization header interpolates
 * (listed in the hook's `allowedEnvVars`), which `init` sets to the hook secret.
 */
export const HTTP_HOOK_PATH = '/hook/claude-code';
export const HOOK_SECRET_ENV = 'FORMATBOX_HOOK_SECRET';
