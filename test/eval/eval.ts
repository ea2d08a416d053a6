/** One eval run: pick files, draw intents, replay them under every strategy. */
import type { Language } from './edits.js';
import { pickFiles } from './corpus.js';
import { intentsFor, simulateFile, STRATEGIES, type EditRecord, type EvalEngine, type FileCase, type Strategy } from './simulate.js';

export const LANGUAGES: readonly Language[] = ['typescript', 'python', 'go', 'toml'];

export interface EvalOptions {
  seed: string;
  filesPerLanguage: number;
  editsPerFile: number;
  languages?: readonly Language[];
  strategies?: readonly Strategy[];
  /** 'formatted' (default): files start formatted. 'as-found': as they are on this machine. */
  start?: 'formatted' | 'as-found';
  /** Called after each file × strategy, for progress output. */
  progress?: (message: string) => void;
}

export interface EvalResult {
  files: FileCase[];
  records: EditRecord[];
}

export async function runEval(engine: EvalEngine, options: EvalOptions): Promise<EvalResult> {
  const languages = options.languages ?? LANGUAGES;
  const strategies = options.strategies ?? STRATEGIES;
  const files: FileCase[] = [];
  for (const language of languages) files.push(...(await pickFiles(engine, language, options.filesPerLanguage, options.seed, options.start)));
  const records: EditRecord[] = [];
  for (const file of files) {
    const intents = intentsFor(options.seed, file.path, options.editsPerFile);
    for (const strategy of strategies) {
      records.push(...(await simulateFile(engine, strategy, file, intents)));
    }
    options.progress?.(`${file.path}: ${intents.length} edits × ${strategies.length} strategies`);
  }
  return { files, records };
}
