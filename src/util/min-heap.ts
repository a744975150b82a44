// A binary min-heap of values ordered by (rank, seq): the smallest rank first, equal ranks in
// the order they were pushed. The one heap of the simulator: the virtual clock's timers
// (rank = due time) and the scheduler's queue (rank = priority).
//
// Written by hand rather than taken from a package: it is the innermost loop of a simulation
// (one push and one pop per timer, ~330k per 20k-task shuffle), and this layout — three
// parallel arrays (ranks as unboxed doubles, sequence numbers, values), sifting a hole instead
// of swapping — allocates nothing per entry besides the value the caller already has.

export class RankedMinHeap<T> {
  #ranks: number[] = [];
  #seqs: number[] = [];
  #values: T[] = [];
  #nextSeq = 0;

  /** Entries in the heap. */
  get size(): number {
    return this.#values.length;
  }

  /** Adds `value` with `rank`; among equal ranks it comes after every value pushed before. */
  push(rank: number, value: T): void {
    const ranks = this.#ranks;
    const seqs = this.#seqs;
    const values = this.#values;
    const seq = this.#nextSeq++;
    let i = values.length;
    ranks.push(rank);
    seqs.push(seq);
    values.push(value);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const parentRank = ranks[parent]!;
      if (parentRank < rank || (parentRank === rank && seqs[parent]! < seq)) break;
      ranks[i] = parentRank;
      seqs[i] = seqs[parent]!;
      values[i] = values[parent]!;
      i = parent;
    }
    ranks[i] = rank;
    seqs[i] = seq;
    values[i] = value;
  }

  /** The value that `pop` would return, or undefined when empty. */
  peek(): T | undefined {
    return this.#values[0];
  }

  /** Rank of the first value, or undefined when empty. */
  peekRank(): number | undefined {
    return this.#ranks[0];
  }

  /** Removes and returns the value with the smallest (rank, seq), or undefined when empty. */
  pop(): T | undefined {
    const values = this.#values;
    if (values.length === 0) return undefined;
    const top = values[0]!;
    const ranks = this.#ranks;
    const seqs = this.#seqs;
    const lastRank = ranks.pop()!;
    const lastSeq = seqs.pop()!;
    const lastValue = values.pop()!;
    if (values.length > 0) this.#siftDown(0, lastRank, lastSeq, lastValue);
    return top;
  }

  /** Keeps only the values for which `keep` is true (O(n); their order is kept). */
  retain(keep: (value: T) => boolean): void {
    const ranks = this.#ranks;
    const seqs = this.#seqs;
    const values = this.#values;
    let n = 0;
    for (let i = 0; i < values.length; i++) {
      const value = values[i]!;
      if (!keep(value)) continue;
      ranks[n] = ranks[i]!;
      seqs[n] = seqs[i]!;
      values[n] = value;
      n++;
    }
    ranks.length = n;
    seqs.length = n;
    values.length = n;
    for (let i = (n >> 1) - 1; i >= 0; i--) this.#siftDown(i, ranks[i]!, seqs[i]!, values[i]!);
  }

  /** Places (rank, seq, value) at hole `index` or below it. */
  #siftDown(index: number, rank: number, seq: number, value: T): void {
    const ranks = this.#ranks;
    const seqs = this.#seqs;
    const values = this.#values;
    const n = values.length;
    let i = index;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= n) break;
      const right = left + 1;
      let child = left;
      if (right < n) {
        const leftRank = ranks[left]!;
        const rightRank = ranks[right]!;
        if (rightRank < leftRank || (rightRank === leftRank && seqs[right]! < seqs[left]!)) child = right;
      }
      const childRank = ranks[child]!;
      if (rank < childRank || (rank === childRank && seq < seqs[child]!)) break;
      ranks[i] = childRank;
      seqs[i] = seqs[child]!;
      values[i] = values[child]!;
      i = child;
    }
    ranks[i] = rank;
    seqs[i] = seq;
    values[i] = value;
  }
}
