// A transfer's last part: the receiver deserialises the message (dask's `from_frames`, whose
// `_deserialize_bytes` is a `b"".join` of the frames holding the receiving process's GIL), so its
// event loop does nothing else meanwhile. The network models move the bytes (the wire); the
// transport books the deserialisation on the receiver's loop. A cluster's capacities keep
// their calibrated meaning — what a transfer limited by them achieves end to end, its
// deserialisation included — so the wire's share of a capacity c is what is left once the
// deserialisation's seconds per byte d are taken off: 1 / wire = 1 / c − d. docs/sim.md, "Network".

/**
 * Seconds per byte of the receiver's deserialisation, from a cluster's `deserializeBandwidth`
 * (bytes/s; null or unset: free).
 */
export function deserializeCost(bandwidth: number | null | undefined): number {
  return bandwidth === null || bandwidth === undefined ? 0 : 1 / bandwidth;
}

/**
 * The wire's share of a calibrated capacity (bytes/s) once `perByte` seconds of every byte go
 * to the deserialisation: 1 / (1 / capacity − perByte); Infinity when the deserialisation alone
 * takes as long as the capacity allows a transfer in all (the wire is then never what binds).
 */
export function wireCapacity(capacity: number, perByte: number): number {
  if (perByte <= 0) return capacity;
  const wire = 1 / capacity - perByte;
  return wire > 0 ? 1 / wire : Number.POSITIVE_INFINITY;
}

/**
 * Seconds the receiver deserialises `bytes` arriving over a path whose narrowest calibrated
 * capacity is `loneRate` (what the transfer gets alone): at most the whole of a lone transfer's
 * byte time, so a lone transfer on an idle loop takes bytes / loneRate whatever `perByte` is.
 */
export function deserializeSeconds(bytes: number, perByte: number, loneRate: number): number {
  if (perByte <= 0 || bytes <= 0) return 0;
  return bytes * Math.min(perByte, 1 / loneRate);
}
