/** The sandbox environment: a fixed base plus allow-listed additions. Nothing is inherited from the host. */
const BASE_ENV: Readonly<Record<string, string>> = {
  PATH: '/usr/bin:/bin',
  HOME: '/nonexistent',
  LANG: 'C.UTF-8',
  TMPDIR: '/tmp',
};

/**
 * Set last, over anything a request adds: interpreters load no code from their working directory,
 * a user site or a startup file, and write no bytecode. (Node, Perl and Ruby read such settings
 * only from variables that are never passed: NODE_OPTIONS, PERL5LIB/PERL5OPT, RUBYLIB/RUBYOPT.)
 */
const INTERPRETER_SAFE_ENV: Readonly<Record<string, string>> = {
  PYTHONSAFEPATH: '1',
  PYTHONDONTWRITEBYTECODE: '1',
  PYTHONNOUSERSITE: '1',
};

/** Variables a request may add (formatter knobs); anything else is dropped. */
const ALLOWED = /^(LANG|LC_[A-Z]+|TZ|NO_COLOR|TERM|RUST_[A-Z_]+|PYTHON[A-Z_]*|GO[A-Z0-9_]*|XDG_[A-Z_]+)$/;
/** Allowed by the pattern above but able to load code or redirect a toolchain: dropped too. */
const CODE_LOADING = /^(PYTHONPATH|PYTHONSTARTUP|PYTHONHOME|PYTHONUSERBASE|PYTHONEXECUTABLE|PYTHONPLATLIBDIR|PYTHONINSPECT|PYTHONBREAKPOINT|PYTHONPYCACHEPREFIX|GOFLAGS|GOENV|GOTOOLCHAIN|RUSTC_WRAPPER|RUSTC_WORKSPACE_WRAPPER)$/;

export function sandboxEnv(extra: Readonly<Record<string, string>> | undefined, overrides: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = { ...BASE_ENV, ...overrides };
  for (const [key, value] of Object.entries(extra ?? {})) if (ALLOWED.test(key) && !CODE_LOADING.test(key)) env[key] = value;
  return { ...env, ...INTERPRETER_SAFE_ENV };
}
