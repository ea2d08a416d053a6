/**
 * Token counting with a real tokenizer: js-tiktoken's o200k_base ranks (shipped in the package,
 * no network). Counts are cached per string because rereads count the same file text often.
 */
import { Tiktoken } from 'js-tiktoken/lite';
import o200kBase from 'js-tiktoken/ranks/o200k_base';

export const TOKENIZER_NAME = 'o200k_base (js-tiktoken)';

let encoder: Tiktoken | undefined;
const cache = new Map<string, number>();

export function countTokens(text: string): number {
  if (text === '') return 0;
  const cached = cache.get(text);
  if (cached !== undefined) return cached;
  encoder ??= new Tiktoken(o200kBase);
  const count = encoder.encode(text).length;
  if (cache.size > 20000) cache.clear();
  cache.set(text, count);
  return count;
}
