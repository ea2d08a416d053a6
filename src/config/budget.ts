/**
 * One budget for all the config of a project. Every cap elsewhere is per file or per pattern; a
 * repository can stay under each of them and still add up to seconds of work and gigabytes of
 * matchers (thousands of `.editorconfig` sections, overrides, Biome includes, `.gitignore` files).
 * The budget counts, across the whole project:
 * - config text read (characters), charged before anything is parsed;
 * - glob patterns compiled, and their size after brace expansion, charged before expanding;
 * - wall-clock time spent loading, checked between files and at every glob.
 * Past any of them the rest is refused, not read. A project over budget is not formatted at all (the
 * engine refuses it with the reason): formatting with part of its config would not write what the
 * project's formatter writes.
 */
import type { IgnoredItem } from '../core/types.js';
import type { GlobBudget, GlobCost } from './glob.js';

export interface ConfigBudgetLimits {
  /** Config text, in characters, over all config files. */
  maxConfigChars: number;
  /** Glob patterns, over all config files. */
  maxPatterns: number;
  /** Glob characters after brace expansion, over all patterns (computed before expanding). */
  maxGlobChars: number;
  /** Wall-clock time for loading all of it. The engine never gives more than its `timeoutMs`. */
  maxMs: number;
}

/**
 * Defaults, far above real projects (a large monorepo has a few hundred ignore files and a few
 * thousand patterns), and low enough that loading stays under a second of work and ~100 MB.
 */
export const CONFIG_BUDGET: ConfigBudgetLimits = { maxConfigChars: 8 * 1024 * 1024, maxPatterns: 20_000, maxGlobChars: 250_000, maxMs: 2_000 };

/** What a load used, and why it stopped when it did (`exceeded`). Shown by doctor(). */
export interface ConfigBudgetReport {
  limits: ConfigBudgetLimits;
  used: { configChars: number; patterns: number; globChars: number; ms: number };
  exceeded?: string;
}

export class ConfigBudget implements GlobBudget {
  readonly limits: ConfigBudgetLimits;
  private configChars = 0;
  private patterns = 0;
  private globChars = 0;
  private readonly started: number;
  /** Why the budget ran out; once set, every further request is refused with it. */
  exceeded: string | undefined;

  constructor(limits: Partial<ConfigBudgetLimits> = {}, private readonly clock: () => number = defaultClock) {
    this.limits = { ...CONFIG_BUDGET, ...limits };
    this.started = clock();
  }

  /** Charges config text before it is parsed. */
  spendText(chars: number): string | undefined {
    if (this.exceeded) return this.exceeded;
    this.configChars += chars;
    if (this.configChars > this.limits.maxConfigChars) return this.exceed(`more than ${this.limits.maxConfigChars} characters of config text`);
    return this.checkTime();
  }

  /** Charges one glob before its braces are expanded. */
  spend(cost: GlobCost): string | undefined {
    if (this.exceeded) return this.exceeded;
    if (this.patterns + 1 > this.limits.maxPatterns) return this.exceed(`more than ${this.limits.maxPatterns} glob patterns`);
    if (this.globChars + cost.chars > this.limits.maxGlobChars) return this.exceed(`more than ${this.limits.maxGlobChars} glob characters after brace expansion`);
    this.patterns++;
    this.globChars += cost.chars;
    return this.checkTime();
  }

  /** Refuses once the time is spent. */
  checkTime(): string | undefined {
    if (this.exceeded) return this.exceeded;
    const ms = this.clock() - this.started;
    return ms > this.limits.maxMs ? this.exceed(`loading took more than ${this.limits.maxMs} ms`) : undefined;
  }

  report(): ConfigBudgetReport {
    const used = { configChars: this.configChars, patterns: this.patterns, globChars: this.globChars, ms: Math.round(this.clock() - this.started) };
    return { limits: this.limits, used, ...(this.exceeded ? { exceeded: this.exceeded } : {}) };
  }

  private exceed(why: string): string {
    this.exceeded = `over the project config budget (${why} in all config of this project); not read`;
    return this.exceeded;
  }
}

function defaultClock(): number {
  return typeof performance !== 'undefined' ? performance.now() : Date.now();
}

/** The item doctor() and every receipt of an over-budget project show. */
export function budgetItem(report: ConfigBudgetReport): IgnoredItem {
  const { used, limits } = report;
  return {
    file: '(project config)',
    item: `config budget: ${used.configChars}/${limits.maxConfigChars} characters, ${used.patterns}/${limits.maxPatterns} globs, ${used.globChars}/${limits.maxGlobChars} glob characters, ${used.ms}/${limits.maxMs} ms`,
    reason: `${report.exceeded ?? 'within budget'}; config past that point was not read, and formatting is refused in this project until its config is within the budget`,
  };
}
