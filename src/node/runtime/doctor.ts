/**
 * `doctor`: what the runtime would do for the files of a directory, and why: per language the
 * formatter chosen (or why none), the sandbox, the subprocess formatters, config items ignored, the
 * config budget, the workers, the limits, the project's wasm and the versions pinned.
 */
import { dirname, relative, resolve, sep } from 'node:path';
import { realpathSync, statSync } from 'node:fs';
import { FormatboxError } from '../../core/errors.js';
import { LANGUAGE_BY_EXTENSION } from '../../core/languages.js';
import type { IgnoredItem, ProjectFiles } from '../../core/types.js';
import type { Sandbox } from '../../core/sandbox.js';
import { shownPath } from '../../core/shown.js';
import { PRETTIER_CODE_CONFIG_NAMES } from '../../config/index.js';
import { FIRST_LINE_RULES } from '../../formatters/derived.js';
import { findNativeBiome } from '../biome-native.js';
import { isInside } from '../fs/paths.js';
import { doctorDprintPlugins, doctorWasmModules } from '../project-wasm.js';
import { detectSandbox } from '../sandbox/index.js';
import type { SubprocessStatus } from '../subprocess.js';
import { engineOf } from './bootstrap.js';
import { refreshConfigIfNeeded } from './config-refresh.js';
import { projectCodeMissing, projectCodeRefusal } from './project-code.js';
import type { RuntimeState } from './state.js';
import type { DoctorLanguage, DoctorReport, Trust } from './types.js';

export async function doctor(state: RuntimeState, request: { path?: string } = {}): Promise<DoctorReport> {
  const { rootReal, trust } = state;
  const dir = request.path === undefined ? '' : doctorDir(rootReal, request.path);
  const eng = await engineOf(state);
  // Config changed on disk along the way to the directory is seen, as before a format.
  await refreshConfigIfNeeded(state, eng, [`${dir === '' ? '' : `${dir}/`}example`]);
  const languages: DoctorLanguage[] = [];
  // The same answer the engine gets (project-code.ts): why a setup that is code would not run sandboxed.
  const refusal = projectCodeRefusal(state);
  const notSandboxed = (formatter: string): string | undefined => refusal ?? projectCodeMissing(state, formatter);
  const seen = new Set<string>();
  const asked: Array<{ language: string; path: string; firstLine?: string }> = [];
  for (const [extension, language] of Object.entries(LANGUAGE_BY_EXTENSION)) {
    if (seen.has(language)) continue;
    seen.add(language);
    asked.push({ language, path: `${dir === '' ? '' : `${dir}/`}example.${extension}` });
  }
  // A file recognised by its first line (a script without an extension): asked with an example of it.
  for (const rule of FIRST_LINE_RULES) asked.push({ language: rule.language, path: `${dir === '' ? '' : `${dir}/`}example`, firstLine: rule.example });
  for (const { language, path, firstLine } of asked) {
    const selection = eng.explain(path, firstLine === undefined ? undefined : `${firstLine}\n`);
    const from = firstLine !== undefined && selection.languageFrom ? { firstLine, languageFrom: selection.languageFrom } : {};
    if (selection.kind === 'format') {
      const formatter = typeof selection.formatter === 'string' ? selection.formatter : JSON.stringify(selection.formatter);
      languages.push({ language, path, ...from, formatter, because: selection.because });
    } else if (selection.kind === 'invalid-config' && selection.error.projectCode && trust === 'untrusted' && !notSandboxed(selection.formatter)) {
      const because = `${selection.because}; its setup is code (${selection.error.file}), so the project's own ${selection.formatter} runs it in the OS sandbox`;
      languages.push({ language, path, ...from, formatter: selection.formatter, because, projectCode: 'sandbox' });
    } else if (selection.kind === 'invalid-config') {
      const why = selection.error.projectCode && trust === 'untrusted' ? notSandboxed(selection.formatter) : undefined;
      languages.push({ language, path, ...from, formatter: selection.formatter, because: selection.because, skipped: `${selection.error.refusal ? 'refused' : 'invalid project config'}: ${selection.error.file}: ${selection.error.message}${why ? ` (not run in the OS sandbox: ${why})` : ''}` });
    } else {
      languages.push({ language, path, ...from, skipped: selection.detail ? `${selection.reason}: ${selection.detail}` : selection.reason });
    }
  }
  const sandbox = detectSandbox();
  const discovered = state.discovered;
  return {
    root: rootReal,
    dir,
    trust,
    languages,
    sandbox: { kind: sandbox.kind, available: sandbox.unavailable === undefined, detail: sandbox.unavailable ?? sandbox.describe() },
    subprocess: [...(state.subprocess?.status() ?? []), nativeBiomeStatus(sandbox)],
    ignored: dedupeIgnored([...discovered.ignored, ...state.pinIgnored, ...eng.ignored, ...unreadFiles(discovered.files, [...discovered.ignored, ...eng.ignored], trust)]),
    ...(eng.configBudget ? { configBudget: eng.configBudget } : {}),
    workers: state.pool.stats(),
    limits: eng.limits,
    wasm: [...doctorWasmModules(rootReal, state.options.config?.formatters as Record<string, unknown> | undefined), ...doctorDprintPlugins(state.localPlugins)],
    versions: await eng.versions(),
  };
}

/** formatbox's native Biome build, which `formatbox format` runs once per run in the sandbox (src/node/project/native-biome-pass.ts). */
function nativeBiomeStatus(sandbox: Sandbox): SubprocessStatus {
  const biome = findNativeBiome();
  const name = 'biome (native, for `formatbox format`)';
  if ('unavailable' in biome) return { name, available: false, detail: biome.unavailable };
  if (sandbox.unavailable) return { name, available: false, detail: `${biome.binary} ${biome.version}; no sandbox: ${sandbox.unavailable}` };
  return { name, available: true, detail: `${biome.binary} ${biome.version}` };
}

/** Config files found but never read (code configs such as prettier.config.js), unless already reported. */
function unreadFiles(files: ProjectFiles, reported: IgnoredItem[], trust: Trust): IgnoredItem[] {
  const named = new Set(reported.map((item) => item.file));
  return Object.entries(files)
    .filter(([file, content]) => content === null && !named.has(file))
    // In trusted mode Prettier's own loader runs its code configs (trusted-prettier.ts); other code configs stay unread.
    .filter(([file]) => !(trust === 'trusted' && PRETTIER_CODE_CONFIG_NAMES.includes(file.slice(file.lastIndexOf('/') + 1))))
    .map(([file]) => ({ file, item: file, reason: trust === 'untrusted' ? 'a config file that is code: never loaded in untrusted mode' : 'a config file that is code: not read as data' }));
}

function dedupeIgnored(items: IgnoredItem[]): IgnoredItem[] {
  const seen = new Set<string>();
  return items.filter((item) => {
    const key = `${item.file}\0${item.item}\0${item.reason}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * The directory `path` names (a file's own directory), relative to the root, as the project-relative
 * POSIX path the engine's config lookup uses. Refused when it leaves the root, also through a symlink.
 */
function doctorDir(rootReal: string, path: string): string {
  if (typeof path !== 'string' || path.includes('\0')) throw new FormatboxError('PATH_REFUSED', 'doctor: the path is not a string');
  const lexical = resolve(rootReal, path);
  let real = lexical;
  try {
    real = realpathSync(lexical);
    if (!statSync(real).isDirectory()) real = dirname(real);
  } catch {
    // A path that does not exist yet: the answers are for its lexical directory.
    real = /[\\/]$/.test(path) ? lexical : dirname(lexical);
  }
  if (real !== rootReal && !isInside(real, rootReal)) throw new FormatboxError('PATH_REFUSED', `doctor: ${shownPath(path)} is outside the project root`);
  return relative(rootReal, real).split(sep).join('/');
}
