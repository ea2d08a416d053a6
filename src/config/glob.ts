/**
 * Globs written in project config (Prettier overrides, .editorconfig sections, Biome includes).
 * They come from untrusted files, so matching is bounded: braces are expanded into at most
 * `MAX_ALTERNATIVES` plain globs, and each plain glob is matched by an NFA walk in O(pattern × path),
 * never by a backtracking RegExp.
 *
 * Syntax: `*` (no `/`), `**` (anything), `**\/` (zero or more directories), `?`, `[a-z]`, `[!x]`/`[^x]`,
 * `{a,b}`, `{1..3}`, `\x`, and `@(a|b)`/`?(a|b)`. Dotfiles match like other names (Prettier, Biome and
 * EditorConfig all match dotfiles).
 */

/**
 * Per glob. `maxExpandedChars`: characters over all brace alternatives, computed before anything is
 * expanded (256 alternatives of a 1,024-character pattern would otherwise be 262,144 characters).
 */
export const GLOB_LIMITS = { maxLength: 1024, maxAlternatives: 256, maxBraceDepth: 8, maxRange: 256, maxExpandedChars: 16_384 };

/** `size`: tokens over all brace alternatives, the cost of one match per path character. */
export type Glob = { ok: true; test(path: string): boolean; size: number } | { ok: false; reason: string };

/** What a glob costs once its braces are expanded, known before expanding them. */
export interface GlobCost {
  alternatives: number;
  /** Characters over all alternatives (an upper bound of the compiled tokens). */
  chars: number;
}

/**
 * Pays for compiled globs: a project's config budget (see budget.ts). `spend` returns why it
 * refuses, or undefined when the glob may be compiled.
 */
export interface GlobBudget {
  spend(cost: GlobCost): string | undefined;
}

type Token =
  | { t: 'lit'; c: string }
  | { t: 'any' }
  | { t: 'class'; negated: boolean; items: Array<[string, string]> }
  | { t: 'star' }
  | { t: 'globstar' }
  | { t: 'dirs' }; // `**/`: zero or more whole directories

/**
 * Compiles a glob into a bounded matcher (or says why it was refused). Its expansion is sized first
 * and checked against the per-glob limits and `budget`; nothing is expanded past them.
 */
export function compileGlob(pattern: string, budget?: GlobBudget): Glob {
  if (pattern.length > GLOB_LIMITS.maxLength) return { ok: false, reason: `glob longer than ${GLOB_LIMITS.maxLength} characters` };
  const cost = globCost(pattern);
  const tooBig =
    cost.reason ??
    (cost.alternatives > GLOB_LIMITS.maxAlternatives ? `braces expand to more than ${GLOB_LIMITS.maxAlternatives} globs` : undefined) ??
    (cost.chars > GLOB_LIMITS.maxExpandedChars ? `braces expand to more than ${GLOB_LIMITS.maxExpandedChars} characters` : undefined);
  // A refused pattern still counts (as one pattern of no size): sizing it took work too.
  const refusal = budget?.spend(tooBig ? { alternatives: 0, chars: 0 } : cost);
  if (refusal) return { ok: false, reason: refusal };
  if (tooBig) return { ok: false, reason: tooBig };
  let alternatives: string[];
  try {
    alternatives = expandBraces(extglobToBraces(pattern), 0);
  } catch (error) {
    return { ok: false, reason: error instanceof GlobError ? error.message : String(error) };
  }
  const programs = [...new Set(alternatives)].map(tokenize);
  const size = programs.reduce((sum, tokens) => sum + tokens.length, 0);
  const matchers = programs.map(matcherFor);
  return { ok: true, test: (path) => matchers.some((matches) => matches(path)), size };
}

class GlobError extends Error {}

/**
 * The size of a glob's brace expansion without expanding it (what `expandBraces` would produce,
 * before duplicates are removed). Refusals (nesting, ranges, extglobs) are reported as `reason`.
 */
export function globCost(pattern: string): GlobCost & { reason?: string } {
  try {
    return expansionCost(extglobToBraces(pattern), 0);
  } catch (error) {
    return { alternatives: 1, chars: pattern.length, reason: error instanceof GlobError ? error.message : String(error) };
  }
}

/** Mirrors `expandBraces` on counts: alternatives multiply along a pattern and add up across `{a,b}`. */
function expansionCost(pattern: string, depth: number): GlobCost {
  if (depth > GLOB_LIMITS.maxBraceDepth) throw new GlobError(`braces nested deeper than ${GLOB_LIMITS.maxBraceDepth}`);
  const open = findBraceOpen(pattern);
  const close = open < 0 ? -1 : findBraceClose(pattern, open);
  if (close < 0) return { alternatives: 1, chars: pattern.length };
  const body = pattern.slice(open + 1, close);
  const head = pattern.slice(0, open);
  const tail = pattern.slice(close + 1);
  const options: GlobCost = { alternatives: 0, chars: 0 };
  const range = /^(-?\d+)\.\.(-?\d+)$/.exec(body);
  if (range) {
    const from = Number(range[1]);
    const to = Number(range[2]);
    if (Math.abs(to - from) + 1 > GLOB_LIMITS.maxRange) throw new GlobError(`brace range {${body}} has more than ${GLOB_LIMITS.maxRange} values`);
    for (let n = from; from <= to ? n <= to : n >= to; n += from <= to ? 1 : -1) {
      options.alternatives++;
      options.chars += String(n).length;
    }
  } else {
    const parts = splitTopLevel(body);
    if (parts.length < 2) return expansionCost(`${head}\\{${body}\\}${tail}`, depth);
    for (const part of parts) {
      const cost = expansionCost(part, depth + 1);
      options.alternatives += cost.alternatives;
      options.chars += cost.chars;
    }
  }
  const tails = expansionCost(tail, depth);
  const alternatives = options.alternatives * tails.alternatives;
  return { alternatives, chars: head.length * alternatives + options.chars * tails.alternatives + tails.chars * options.alternatives };
}

/** `@(a|b)` → `{a,b}`, `?(a|b)` → `{,a,b}`; other extglobs are refused. */
function extglobToBraces(pattern: string): string {
  if (!/[@?!+*]\(/.test(pattern)) return pattern;
  return pattern.replace(/([@?!+*])\(([^()]*)\)/g, (_whole, kind: string, body: string) => {
    const parts = body.split('|');
    if (kind === '@') return `{${parts.join(',')}}`;
    if (kind === '?') return `{,${parts.join(',')}}`;
    throw new GlobError(`extglob ${kind}(…) is not supported`);
  });
}

/** Expands `{a,b}` and `{1..3}` (outside `[...]`), refusing more than `maxAlternatives` results. */
export function expandBraces(pattern: string, depth: number): string[] {
  if (depth > GLOB_LIMITS.maxBraceDepth) throw new GlobError(`braces nested deeper than ${GLOB_LIMITS.maxBraceDepth}`);
  const open = findBraceOpen(pattern);
  if (open < 0) return [pattern];
  const close = findBraceClose(pattern, open);
  if (close < 0) return [pattern];
  const body = pattern.slice(open + 1, close);
  const head = pattern.slice(0, open);
  const tail = pattern.slice(close + 1);
  let options: string[];
  const range = /^(-?\d+)\.\.(-?\d+)$/.exec(body);
  if (range) {
    const from = Number(range[1]);
    const to = Number(range[2]);
    if (Math.abs(to - from) + 1 > GLOB_LIMITS.maxRange) throw new GlobError(`brace range {${body}} has more than ${GLOB_LIMITS.maxRange} values`);
    options = [];
    for (let n = from; from <= to ? n <= to : n >= to; n += from <= to ? 1 : -1) options.push(String(n));
  } else {
    const parts = splitTopLevel(body);
    if (parts.length < 2) {
      // `{x}` is literal in micromatch and EditorConfig.
      return expandBraces(`${head}\\{${body}\\}${tail}`, depth);
    }
    options = parts.flatMap((part) => expandBraces(part, depth + 1));
  }
  if (options.length > GLOB_LIMITS.maxAlternatives) throw new GlobError(`braces expand to more than ${GLOB_LIMITS.maxAlternatives} globs`);
  const tails = expandBraces(tail, depth);
  const out: string[] = [];
  for (const option of options) {
    for (const rest of tails) {
      out.push(head + option + rest);
      if (out.length > GLOB_LIMITS.maxAlternatives) throw new GlobError(`braces expand to more than ${GLOB_LIMITS.maxAlternatives} globs`);
    }
  }
  return out;
}

function findBraceOpen(pattern: string): number {
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') i++;
    else if (inClass) {
      if (c === ']') inClass = false;
    } else if (c === '[') inClass = pattern.indexOf(']', i + 2) > 0;
    else if (c === '{') return i;
  }
  return -1;
}

function findBraceClose(pattern: string, open: number): number {
  let depth = 0;
  for (let i = open; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') i++;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return i;
  }
  return -1;
}

function splitTopLevel(body: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c === '\\') i++;
    else if (c === '{') depth++;
    else if (c === '}') depth--;
    else if (c === ',' && depth === 0) {
      parts.push(body.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(body.slice(start));
  return parts;
}

function tokenize(pattern: string): Token[] {
  const tokens: Token[] = [];
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] as string;
    if (c === '\\' && i + 1 < pattern.length) {
      tokens.push({ t: 'lit', c: pattern[++i] as string });
    } else if (c === '*') {
      if (pattern[i + 1] === '*') {
        const atSegmentStart = i === 0 || pattern[i - 1] === '/';
        while (pattern[i + 1] === '*') i++;
        if (atSegmentStart && pattern[i + 1] === '/') {
          tokens.push({ t: 'dirs' });
          i++;
        } else tokens.push({ t: 'globstar' });
      } else tokens.push({ t: 'star' });
    } else if (c === '?') {
      tokens.push({ t: 'any' });
    } else if (c === '[') {
      const end = pattern.indexOf(']', i + 2);
      if (end < 0) {
        tokens.push({ t: 'lit', c });
        continue;
      }
      let body = pattern.slice(i + 1, end);
      const negated = body[0] === '!' || body[0] === '^';
      if (negated) body = body.slice(1);
      const items: Array<[string, string]> = [];
      for (let k = 0; k < body.length; k++) {
        const from = body[k] as string;
        if (body[k + 1] === '-' && k + 2 < body.length) {
          items.push([from, body[k + 2] as string]);
          k += 2;
        } else items.push([from, from]);
      }
      tokens.push({ t: 'class', negated, items });
      i = end;
    } else {
      tokens.push({ t: 'lit', c });
    }
  }
  return tokens;
}

/**
 * The common shapes (`name`, `*.ext`, `prefix*`) are plain string tests; everything else runs the NFA
 * (a Thompson-style simulation: a set of token positions, advanced one character at a time).
 * Ignore files are mostly these shapes, and every rule is tried on every directory of a path.
 */
function matcherFor(tokens: Token[]): (path: string) => boolean {
  const literal = (list: Token[]): string | undefined =>
    list.every((t) => t.t === 'lit') ? list.map((t) => (t as { c: string }).c).join('') : undefined;
  const whole = literal(tokens);
  if (whole !== undefined) return (path) => path === whole;
  const suffix = tokens[0]?.t === 'star' ? literal(tokens.slice(1)) : undefined;
  if (suffix !== undefined) {
    return (path) => path.endsWith(suffix) && !path.slice(0, path.length - suffix.length).includes('/');
  }
  const prefix = tokens[tokens.length - 1]?.t === 'star' ? literal(tokens.slice(0, -1)) : undefined;
  if (prefix !== undefined) return (path) => path.startsWith(prefix) && !path.slice(prefix.length).includes('/');
  return (path) => run(tokens, path);
}

function run(tokens: Token[], path: string): boolean {
  const m = tokens.length;
  // State k*2 = "before token k"; k*2+1 = "inside a `dirs` token, before its closing slash".
  let current = new Uint8Array(2 * m + 2);
  let next = new Uint8Array(2 * m + 2);
  const close = (set: Uint8Array): void => {
    for (let k = 0; k < m; k++) {
      if (!set[2 * k]) continue;
      const token = tokens[k] as Token;
      if (token.t === 'star' || token.t === 'globstar' || token.t === 'dirs') set[2 * (k + 1)] = 1;
      if (token.t === 'dirs') set[2 * k + 1] = 1;
    }
  };
  current[0] = 1;
  close(current);
  for (let j = 0; j < path.length; j++) {
    const c = path[j] as string;
    next.fill(0);
    let alive = false;
    for (let k = 0; k < m; k++) {
      const token = tokens[k] as Token;
      if (current[2 * k]) {
        let advance = false;
        let stay = false;
        switch (token.t) {
          case 'lit':
            advance = token.c === c;
            break;
          case 'any':
            advance = c !== '/';
            break;
          case 'class': {
            const inside = token.items.some(([from, to]) => c >= from && c <= to);
            advance = c !== '/' && inside !== token.negated;
            break;
          }
          case 'star':
            stay = c !== '/';
            break;
          case 'globstar':
            stay = true;
            break;
          case 'dirs':
            break;
        }
        if (advance) next[2 * (k + 1)] = 1;
        if (stay) next[2 * k] = 1;
        alive ||= advance || stay;
      }
      if (token.t === 'dirs' && current[2 * k + 1]) {
        next[2 * k + 1] = 1;
        if (c === '/') next[2 * (k + 1)] = 1;
        alive = true;
      }
    }
    if (!alive) return false;
    close(next);
    [current, next] = [next, current];
  }
  return current[2 * m] === 1;
}
