// Transfers vary: each transfer's wire draws its own factor, lognormal with median 1, and moves
// `bytes × factor` through the model's capacities (docs/sim.md, "Transfers vary"). A pair of dask
// workers never moves the same value in the same time twice (fidelity/tools/transfer_spread.py:
// a lone fetch's wire part — the loop's read_into of every byte — varies by a factor whose log
// spreads alike at 3-48 MB, while its deserialisation hardly varies), and races between a fetch
// and a sibling task are then coins, not certainties.
import { Rng } from "../rng.js";
import type { SimNetwork, TransferRequest } from "./types.js";

/**
 * The sigma of the wire factor's log with no layer setting it: off. The shared calibration's
 * figure is 0.84 (`SHARED_CALIBRATION_TRANSFER_SPREAD`); docs/sim.md, "Transfers vary", says
 * why the default stays off.
 */
export const DEFAULT_TRANSFER_SPREAD: number | null = null;

/**
 * The shared calibration's spread (../shared/fidelity/calibration.json, 7 one-at-a-time transfers
 * per size at 1-64 MB): the sigma of a lognormal wire factor whose modelled transfers have the
 * calibration's mean log(max / min), 0.90 (transfer_spread.py, fidelity/quiet/tools/transfer_spread.json).
 */
export const SHARED_CALIBRATION_TRANSFER_SPREAD = 0.84;

/**
 * `inner` with every transfer's wire drawn slower or faster: a factor exp(sigma × N(0, 1)) per
 * transfer from a stream of its own per receiver (derived from the run's seed: drawing moves no
 * other random choice of the run, and one worker's fetches do not shift another's draws). The
 * factor scales the bytes the flow moves, so under max-min a slow transfer holds its share of
 * every capacity on its path for longer — dask's wire is the loops' reads and writes, CPU work
 * per byte, not an idle wait — and the latency, the receiver's deserialisation (which the model
 * books from the real bytes) and the bytes reported stay as they are. sigma ≤ 0: `inner` itself.
 */
export function withTransferSpread(inner: SimNetwork, sigma: number, seed: number): SimNetwork {
  if (!(sigma > 0) || inner.kind === "instant") return inner;
  return new SpreadNetwork(inner, sigma, seed);
}

class SpreadNetwork implements SimNetwork {
  readonly kind: SimNetwork["kind"];
  readonly moving?: SimNetwork["moving"];
  readonly holdLoop?: SimNetwork["holdLoop"];
  readonly loopSharesChanged?: SimNetwork["loopSharesChanged"];
  /** Each receiver's stream of factors, by its address. */
  private readonly streams = new Map<string, Rng>();

  constructor(
    private readonly inner: SimNetwork,
    private readonly sigma: number,
    private readonly seed: number,
  ) {
    this.kind = inner.kind;
    if (inner.moving !== undefined) this.moving = (address) => inner.moving!(address);
    if (inner.holdLoop !== undefined) this.holdLoop = (address, at, seconds) => inner.holdLoop!(address, at, seconds);
    if (inner.loopSharesChanged !== undefined) this.loopSharesChanged = () => inner.loopSharesChanged!();
  }

  /** The next factor of transfers into `to`. */
  factor(to: string): number {
    let rng = this.streams.get(to);
    if (rng === undefined) this.streams.set(to, (rng = Rng.derive(this.seed, `transferSpread:${to}`)));
    return Math.exp(this.sigma * rng.standardNormal());
  }

  transfer(request: TransferRequest): Promise<void> {
    if (request.bytes <= 0) return this.inner.transfer(request);
    const bytes = request.bytes * this.factor(request.to);
    return this.inner.transfer({ from: request.from, to: request.to, bytes, keys: request.keys, signal: request.signal });
  }

  failWorker(address: string): void {
    this.inner.failWorker(address);
  }

  deserializeSeconds(from: string, to: string, bytes: number): number {
    return this.inner.deserializeSeconds(from, to, bytes);
  }
}
