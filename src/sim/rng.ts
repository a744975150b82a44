// The simulator's one source of randomness: xoshiro128** seeded through splitmix32.
// Every random choice of a run (graph shape, durations, sizes, faults) comes from a
// generator derived from the run's seed, so a seed replays a run exactly.

/** A seeded pseudo-random generator (xoshiro128**, 32-bit state words). */
export class Rng {
  private s0: number;
  private s1: number;
  private s2: number;
  private s3: number;
  /** Cached second value of the last Box–Muller pair, or NaN. */
  private spareNormal = Number.NaN;

  constructor(seed: number) {
    let state = seed >>> 0;
    // splitmix32 spreads even tiny or zero seeds over the whole state.
    const next = (): number => {
      state = (state + 0x9e3779b9) >>> 0;
      return mix32(state);
    };
    this.s0 = next();
    this.s1 = next();
    this.s2 = next();
    this.s3 = next();
    if ((this.s0 | this.s1 | this.s2 | this.s3) === 0) this.s0 = 1;
  }

  /** A generator for one named purpose, independent of how much the others consumed. */
  static derive(seed: number, stream: string): Rng {
    return new Rng(hashString(stream, seed >>> 0));
  }

  /** Next 32-bit unsigned integer. */
  nextUint32(): number {
    const result = Math.imul(rotl(Math.imul(this.s1, 5), 7), 9) >>> 0;
    const t = this.s1 << 9;
    this.s2 ^= this.s0;
    this.s3 ^= this.s1;
    this.s1 ^= this.s2;
    this.s0 ^= this.s3;
    this.s2 ^= t;
    this.s3 = rotl(this.s3, 11);
    return result;
  }

  /** Uniform in [0, 1) with 32 bits of resolution. */
  random(): number {
    return this.nextUint32() / 4294967296;
  }

  /** Uniform integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.random() * n);
  }

  /** True with probability p. Draws nothing when p is 0 or 1, so adding a zero-probability
   * fault never shifts the other random choices. */
  chance(p: number): boolean {
    if (p <= 0) return false;
    if (p >= 1) return true;
    return this.random() < p;
  }

  uniform(low: number, high: number): number {
    return low + (high - low) * this.random();
  }

  /** Standard normal draw (Box–Muller, pairs cached). */
  standardNormal(): number {
    if (!Number.isNaN(this.spareNormal)) {
      const spare = this.spareNormal;
      this.spareNormal = Number.NaN;
      return spare;
    }
    let u = this.random();
    while (u === 0) u = this.random();
    const v = this.random();
    const radius = Math.sqrt(-2 * Math.log(u));
    this.spareNormal = radius * Math.sin(2 * Math.PI * v);
    return radius * Math.cos(2 * Math.PI * v);
  }

  exponential(mean: number): number {
    let u = this.random();
    while (u === 0) u = this.random();
    return -Math.log(u) * mean;
  }
}

/** murmur3's 32-bit finaliser: a bijection of 32-bit words that spreads every input bit over the output. */
export function mix32(x: number): number {
  let z = x >>> 0;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
  return (z ^ (z >>> 16)) >>> 0;
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}

/** FNV-1a over the string, mixed with a seed: stable across platforms and runs. */
export function hashString(text: string, seed = 0): number {
  let hash = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}
