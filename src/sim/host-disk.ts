// The disk (and page cache) that the worker processes of one host share. Each worker's
// VirtualDisk still serves its own requests one at a time at up to its `bandwidth`; on a host
// with a shared capacity, the bytes moving at any instant on all its disks add up to at most
// `hostBandwidth`. A request takes what earlier requests left: its rate is the smaller of its
// disk's bandwidth and the host's capacity less the rates already booked, changing where those
// bookings start or end. Earlier requests are never slowed by later ones, so a request's
// duration is known when it is issued — the SpillBuffer records it as the span's length then.
// Two disks writing at once thus move `hostBandwidth` together, the first at its own rate.

interface Booking {
  from: number;
  to: number;
  rate: number;
}

export class HostDisk {
  /** Bookings that may still overlap a new request (ended ones are dropped as time passes). */
  private bookings: Booking[] = [];

  constructor(readonly capacity: number) {
    // No capacity would leave a request waiting forever.
    if (!(capacity > 0) || !Number.isFinite(capacity)) throw new RangeError(`a host disk needs a positive finite capacity, got ${capacity}`);
  }

  /**
   * Books `bytes` starting at `start` (after any latency) at up to `bandwidth`; returns the time
   * the last byte moves. The few bookings of one host (one per disk busy, each disk serial)
   * make the walk over their boundaries cheap.
   */
  book(start: number, bytes: number, bandwidth: number, now: number): number {
    if (this.bookings.length > 0) this.bookings = this.bookings.filter((b) => b.to > now);
    if (bytes <= 0) return start;
    const edges = new Set<number>();
    for (const b of this.bookings) {
      if (b.from > start) edges.add(b.from);
      if (b.to > start) edges.add(b.to);
    }
    const boundaries = [...edges].sort((a, b) => a - b);
    const added: Booking[] = [];
    let t = start;
    let left = bytes;
    let next = 0;
    for (;;) {
      while (next < boundaries.length && boundaries[next]! <= t) next++;
      const until = next < boundaries.length ? boundaries[next]! : Infinity;
      const rate = Math.min(bandwidth, this.capacity - this.bookedAt(t));
      // Rounding can leave a sliver of capacity where the bookings fill it: treat it as none.
      if (rate > this.capacity * 1e-9) {
        const end = t + left / rate;
        if (end <= until) {
          added.push({ from: t, to: end, rate });
          t = end;
          break;
        }
        added.push({ from: t, to: until, rate });
        left -= rate * (until - t);
      }
      t = until;
    }
    for (const b of added) this.bookings.push(b);
    return t;
  }

  /** Bytes per second booked at instant t, all the host's disks together (a booking covers [from, to)). */
  bookedAt(t: number): number {
    let sum = 0;
    for (const b of this.bookings) if (b.from <= t && t < b.to) sum += b.rate;
    return sum;
  }
}
