/** The sandbox environment: a fixed base plus allow-listed additions. Nothing is inherited from the host. */
export const BASE_ENV: Readonly<Record<string, string>> = {
  PATH: '/usr/bin:/bin',
  HOME: '/nonexistent',
  LANG: 'C.UTF-8',
  TMPDIR: '/tmp',
};

/** Variables a request may add (formatter knobs); anything else is dropped. */
const ALLOWED = /^(LANG|LC_[A-Z]+|TZ|NO_COLOR|TERM|RUST_[A-Z_]+|PYTHON[A-Z_]*|GO[A-Z0-9_]*|XDG_[A-Z_]+)$/;

export function sandboxEnv(extra: Readonly<Record<string, string>> | undefined, overrides: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = { ...BASE_ENV, ...overrides };
  for (const [key, value] of Object.entries(extra ?? {})) if (ALLOWED.test(key)) env[key] = value;
  return env;
}
