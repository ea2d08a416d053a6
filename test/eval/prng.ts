/**
 * A small seeded PRNG (mulberry32) with labelled sub-streams, so that a scenario's random
 * choices for file 3, edit 5 do not depend on what happened while simulating file 2.
 */

/** 32-bit FNV-1a of a string. */
export function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

export class Rng {
  private state: number;

  constructor(seed: number | string) {
    this.state = typeof seed === 'number' ? seed >>> 0 : hash32(seed);
  }

  /** A uniform float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('Rng.pick on an empty list');
    return items[Math.floor(this.next() * items.length)] as T;
  }

  /** A new independent stream named by `labels` (deterministic from this seed and the labels). */
  fork(...labels: (string | number)[]): Rng {
    return new Rng(hash32(`${this.state}:${labels.join('/')}`));
  }

  /** Deterministic shuffle (Fisher–Yates) of a copy. */
  shuffle<T>(items: readonly T[]): T[] {
    const copy = items.slice();
    for (let i = copy.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      [copy[i], copy[j]] = [copy[j] as T, copy[i] as T];
    }
    return copy;
  }
}

/** A seeded uniform float stream in [0, 1): mulberry32, the generator `Rng` wraps. */
export function mulberry32(seed: number): () => number {
  const rng = new Rng(seed);
  return () => rng.next();
}
