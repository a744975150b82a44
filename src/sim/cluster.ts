// The cluster a run simulates, resolved from its layers. Lowest first: the simulator's
// defaults, the workload's `cluster` section, a cluster profile (`options.cluster`,
// `--cluster FILE`), then the run's own options (`workers`, `threads`, `memoryLimit`,
// `network`, `latency`, `bandwidth`, `disk`). A field set in a higher layer wins; the
// sections `disk`, `overheads` and `memory` are merged field by field. The workers are
// laid out by the highest layer that sets `workers` or `groups`; `threads`, `memoryLimit`
// and the bandwidths of a higher layer apply to every group, those of that layer or below
// only to groups that do not set their own. A profile that extends another is two layers
// (or more), folded into one by stackClusterLayer, which resolves as they would stacked.
import { DEFAULT_THREADS, DEFAULT_WORKERS } from "./defaults.js";
import { DEFAULT_DISK, type DiskParameters } from "./disk.js";
import { formatLimit, LIMITS } from "./limits.js";
import { DEFAULT_MEMORY_MODEL, type MemoryModel } from "./memory.js";
import { DEFAULT_LOOP_BANDWIDTH, DEFAULT_NETWORK, DEFAULT_NETWORK_KIND, DESERIALIZE_BANDWIDTH, DEFAULT_TRANSFER_SPREAD, type NetworkKind } from "./network/index.js";
import type { ClusterSpec, HostSpec } from "./cluster-spec.js";
import { eevdfCredit, eevdfSlice, type HostCpuParameters } from "./host-cpu.js";
import { DEFAULT_OVERHEADS, type Overheads } from "./overheads.js";

/** One simulated worker as the cluster describes it. */
export interface WorkerShape {
  readonly address: string;
  /** Index of its host (workers are packed `workersPerHost` to a host, in order). */
  readonly host: number;
  /** Name of its group, when the cluster has named groups. */
  readonly group: string | null;
  readonly nthreads: number;
  readonly memoryLimit: number | null;
  /** Bytes/s it can send and receive. */
  readonly sendBandwidth: number;
  readonly receiveBandwidth: number;
}

export interface ResolvedCluster {
  readonly workers: readonly WorkerShape[];
  readonly network: NetworkKind;
  /** One-way latency of a transfer (network model), seconds. */
  readonly latency: number;
  /** The cluster-wide bandwidth (what the network model reports and per-worker defaults come from). */
  readonly bandwidth: number;
  readonly workersPerHost: number;
  /** Capacity of a host shared by its workers' sends and receives (shared-host network); null = their largest bandwidth. */
  readonly hostBandwidth: number | null;
  /** Bytes/s each worker's event loop moves, its sends and receives together (max-min, shared-host); null = no such limit. */
  readonly loopBandwidth: number | null;
  /** Bytes/s a receiving worker deserialises a message at, its event loop stopped meanwhile (network/deserialize.ts); null = free. */
  readonly deserializeBandwidth: number | null;
  /** The sigma of each transfer's lognormal wire factor (network/spread.ts); null = every transfer exact. */
  readonly transferSpread: number | null;
  readonly disk: DiskParameters;
  /** The hosts' cores and other load (host-cpu.ts), and where the scheduler runs; null = no CPU model (no thread waits for a core). */
  readonly host: ResolvedHost | null;
  readonly overheads: Overheads;
  readonly memory: MemoryModel;
}

export interface ResolvedHost extends HostCpuParameters {
  /** Index of the scheduler's host; null = a host of its own (nothing else runs there). */
  readonly schedulerHost: number | null;
}

/** The run options that describe the cluster (SimOptions' own fields), the highest layer. */
export interface ClusterOptions {
  workers?: number | undefined;
  threads?: number | undefined;
  memoryLimit?: number | null | undefined;
  network?: NetworkKind | undefined;
  latency?: number | undefined;
  bandwidth?: number | undefined;
  disk?: { bandwidth?: number; latency?: number } | undefined;
}

/** Raised when layers cannot be combined (the caller turns it into its own error type). */
export class ClusterLayoutError extends Error {}

type Layer = ClusterSpec;

function highest<K extends keyof Layer>(layers: readonly Layer[], field: K, from = 0, to = layers.length - 1): Layer[K] | undefined {
  for (let i = to; i >= from; i--) {
    const value = layers[i]![field];
    if (value !== undefined) return value;
  }
  return undefined;
}

function mergeSection<T extends object>(defaults: T, sections: ReadonlyArray<Partial<T> | undefined>): T {
  const out = { ...defaults };
  for (const section of sections) {
    if (section === undefined) continue;
    for (const key of Object.keys(section) as Array<keyof T>) {
      const value = section[key];
      if (value !== undefined) out[key] = value as T[keyof T];
    }
  }
  return out;
}

/** A layer's `bandwidth` stands for both directions unless the same layer names one of them. */
function directional(layer: Layer | { bandwidth?: number; sendBandwidth?: number; receiveBandwidth?: number }): { send?: number; receive?: number } {
  const out: { send?: number; receive?: number } = {};
  const send = layer.sendBandwidth ?? layer.bandwidth;
  const receive = layer.receiveBandwidth ?? layer.bandwidth;
  if (send !== undefined) out.send = send;
  if (receive !== undefined) out.receive = receive;
  return out;
}

function isLayerList(profile: ClusterSpec | readonly ClusterSpec[]): profile is readonly ClusterSpec[] {
  return Array.isArray(profile);
}

/**
 * The cluster of `workload`'s section under `profile` (one layer, or several, lowest first:
 * what a chain of `extends` stands for) under the run's `options`.
 */
export function resolveCluster(
  workload: ClusterSpec,
  profile: ClusterSpec | readonly ClusterSpec[] | undefined,
  options: ClusterOptions,
  address: (worker: number, host: number, slot: number) => string,
): ResolvedCluster {
  const top: Layer = {};
  if (options.workers !== undefined) top.workers = options.workers;
  if (options.threads !== undefined) top.threads = options.threads;
  if (options.memoryLimit !== undefined) top.memoryLimit = options.memoryLimit;
  if (options.network !== undefined) top.network = options.network;
  if (options.latency !== undefined) top.latency = options.latency;
  if (options.bandwidth !== undefined) top.bandwidth = options.bandwidth;
  if (options.disk !== undefined) top.disk = options.disk;
  const profiles: readonly Layer[] = profile === undefined ? [] : isLayerList(profile) ? profile : [profile];
  const layers: Layer[] = [workload, ...profiles, top];

  const layoutOf = (to: number): number => {
    for (let i = to; i >= 0; i--) if (layers[i]!.workers !== undefined || layers[i]!.groups !== undefined) return i;
    return -1;
  };
  const layoutAt = layoutOf(layers.length - 1);
  const replaced = top.workers === undefined ? -1 : layoutOf(layers.length - 2);
  if (replaced >= 0 && layers[replaced]!.groups !== undefined) {
    throw new ClusterLayoutError("option workers cannot replace the cluster's worker groups: set the count of each group in the spec or profile");
  }
  const groups = layoutAt >= 0 && layers[layoutAt]!.groups !== undefined ? layers[layoutAt]!.groups! : [{ count: layoutAt >= 0 ? layers[layoutAt]!.workers! : DEFAULT_WORKERS }];
  const total = groups.reduce((sum, group) => sum + group.count, 0);
  if (total > LIMITS.workers) throw new ClusterLayoutError(`${formatLimit(total)} workers in all, more than the limit of ${formatLimit(LIMITS.workers)}`);

  const network = highest(layers, "network") ?? DEFAULT_NETWORK_KIND;
  const bandwidth = highest(layers, "bandwidth") ?? DEFAULT_NETWORK.bandwidth;
  const workersPerHost = highest(layers, "workersPerHost") ?? 1;
  const loopBandwidth = highest(layers, "loopBandwidth") ?? DEFAULT_LOOP_BANDWIDTH;
  // dask's, measured quiet, unless a layer says (`false`: free); on by default because no fidelity
  // case left ±5 % with it and the shared and quiet spec-alone sets came closer (docs/sim.md, "Network")
  const deserializeBandwidth = highest(layers, "deserializeBandwidth") ?? DESERIALIZE_BANDWIDTH;
  // off unless a layer says: docs/sim.md, "Transfers vary" (the shared calibration's figure is 0.84)
  const transferSpread = highest(layers, "transferSpread") ?? DEFAULT_TRANSFER_SPREAD;
  const from = Math.max(0, layoutAt);
  // Per group: a higher layer's value, else the group's own, else the layout layer's or a lower one's.
  const above = <K extends "threads" | "memoryLimit">(field: K) => (layoutAt + 1 < layers.length ? highest(layers, field, layoutAt + 1) : undefined);
  const below = <K extends "threads" | "memoryLimit">(field: K) => highest(layers, field, 0, from);
  const directionAbove = (dir: "send" | "receive"): number | undefined => {
    for (let i = layers.length - 1; i > layoutAt; i--) {
      const value = directional(layers[i]!)[dir];
      if (value !== undefined) return value;
    }
    return undefined;
  };
  const directionBelow = (dir: "send" | "receive"): number | undefined => {
    for (let i = from; i >= 0; i--) {
      const value = directional(layers[i]!)[dir];
      if (value !== undefined) return value;
    }
    return undefined;
  };

  const workers: WorkerShape[] = [];
  for (const group of groups) {
    const spec = group as Partial<NonNullable<ClusterSpec["groups"]>[number]>;
    const nthreads = above("threads") ?? spec.threads ?? below("threads") ?? DEFAULT_THREADS;
    const aboveLimit = above("memoryLimit");
    const memoryLimit = aboveLimit !== undefined ? aboveLimit : spec.memoryLimit !== undefined ? spec.memoryLimit : (below("memoryLimit") ?? null);
    const own = directional(spec);
    const sendBandwidth = directionAbove("send") ?? own.send ?? directionBelow("send") ?? bandwidth;
    const receiveBandwidth = directionAbove("receive") ?? own.receive ?? directionBelow("receive") ?? bandwidth;
    for (let k = 0; k < group.count; k++) {
      const index = workers.length;
      const host = Math.floor(index / workersPerHost);
      workers.push({
        address: address(index, host, index % workersPerHost),
        host,
        group: spec.name ?? null,
        nthreads,
        memoryLimit,
        sendBandwidth,
        receiveBandwidth,
      });
    }
  }

  const hosts = workers.length === 0 ? 0 : workers[workers.length - 1]!.host + 1;
  return {
    workers,
    host: resolveHost(layers.map((layer) => layer.host), hosts),
    network,
    latency: highest(layers, "latency") ?? DEFAULT_NETWORK.latency,
    bandwidth,
    workersPerHost,
    hostBandwidth: highest(layers, "hostBandwidth") ?? null,
    loopBandwidth: loopBandwidth === false ? null : loopBandwidth,
    deserializeBandwidth: deserializeBandwidth === false ? null : deserializeBandwidth,
    transferSpread: transferSpread === false || transferSpread === null || transferSpread === 0 ? null : transferSpread,
    disk: mergeSection<DiskParameters>(DEFAULT_DISK, layers.map((layer) => layer.disk)),
    overheads: mergeSection<Overheads>(DEFAULT_OVERHEADS, layers.map((layer) => layer.overheads)),
    memory: mergeSection<MemoryModel>(DEFAULT_MEMORY_MODEL, layers.map((layer) => layer.memory)),
  };
}

/** The host section merged field by field; null when no layer has one. */
function resolveHost(sections: ReadonlyArray<HostSpec | undefined>, hosts: number): ResolvedHost | null {
  if (sections.every((section) => section === undefined)) return null;
  const merged = mergeSection<HostSpec>({}, sections);
  if (merged.cores === undefined) throw new ClusterLayoutError("cluster.host: expected cores (the cores of each host) where another of its fields is set");
  const schedulerHost = merged.schedulerHost === undefined ? 0 : merged.schedulerHost;
  if (schedulerHost !== null && schedulerHost >= hosts) {
    throw new ClusterLayoutError(`cluster.host.schedulerHost: host ${schedulerHost} does not exist (the workers fill ${hosts} host${hosts === 1 ? "" : "s"}; null puts the scheduler on a host of its own)`);
  }
  const rule = merged.rule ?? "lag";
  // A field the rule never reads would be ignored without a word (a profile written for the
  // credit rule, before lag became the default, would lose its credit).
  if (rule === "lag" && merged.credit !== undefined) {
    throw new ClusterLayoutError("cluster.host.credit: only rule credit has a credit (this host's rule is lag, the default, whose burst is slice); set rule: credit, or slice");
  }
  if (rule === "credit" && merged.slice !== undefined) {
    throw new ClusterLayoutError("cluster.host.slice: only rule lag has a slice (this host's rule is credit); drop slice, or set credit");
  }
  return {
    cores: merged.cores,
    load: merged.load ?? 0,
    rule,
    slice: merged.slice ?? eevdfSlice(merged.cores),
    credit: merged.credit ?? eevdfCredit(merged.cores),
    schedulerHost,
  };
}

/**
 * How stackClusterLayer folds each field of a layer (a field added to the schema must be given
 * its way here, or this does not compile): `highest`, the fields resolveCluster takes from the
 * highest layer that sets them; `section`, merged field by field; the layout and the two
 * directions, below; `extends` never reaches a layer (profile-file.ts reads it).
 */
const FOLD = {
  network: "highest",
  latency: "highest",
  bandwidth: "highest",
  workersPerHost: "highest",
  hostBandwidth: "highest",
  loopBandwidth: "highest",
  deserializeBandwidth: "highest",
  transferSpread: "highest",
  scheduler: "highest",
  threads: "highest",
  memoryLimit: "highest",
  disk: "section",
  overheads: "section",
  memory: "section",
  host: "section",
  workers: "layout",
  groups: "layout",
  sendBandwidth: "direction",
  receiveBandwidth: "direction",
  extends: "none",
} as const satisfies Record<keyof Layer, "highest" | "section" | "layout" | "direction" | "none">;
const HIGHEST_FIELDS = (Object.keys(FOLD) as Array<keyof Layer>).filter((field) => FOLD[field] === "highest");

/**
 * The one layer that resolves as `upper` stacked on `lower` does, below and above any other
 * layers (a profile that extends another: loadClusterProfile folds the chain with it, so a
 * caller still gets one profile, as before). Not a flat merge of the two objects, which
 * resolves otherwise in three places:
 * - the layout is the upper layer's when it sets `workers` or `groups` (the lower's other one
 *   goes with it: one layer may not hold both);
 * - `bandwidth` stands for both directions unless its own layer names one: a lower
 *   `sendBandwidth` under an upper `bandwidth` is overridden, so each direction is the upper
 *   layer's, else the lower's, and written out where it differs from `bandwidth`;
 * - a layer above the layout's applies its `threads`, `memoryLimit` and bandwidths to every
 *   group, one at the layout's only to groups that set none: over the lower layer's groups,
 *   the upper's go into each group.
 * test/sim/cluster-extends.test.ts holds the two equal over random layers.
 */
export function stackClusterLayer(lower: ClusterSpec, upper: ClusterSpec): ClusterSpec {
  const out: Layer = {};
  const put = <K extends keyof Layer>(field: K, value: Layer[K] | undefined): void => {
    if (value !== undefined) out[field] = value;
  };
  for (const field of HIGHEST_FIELDS) put(field, upper[field] !== undefined ? upper[field] : lower[field]);
  // the sections resolveCluster merges field by field
  put("disk", section(lower.disk, upper.disk));
  put("overheads", section(lower.overheads, upper.overheads));
  put("memory", section(lower.memory, upper.memory));
  put("host", section(lower.host, upper.host));
  const upperLays = upper.workers !== undefined || upper.groups !== undefined;
  const layout = upperLays ? upper : lower;
  put("workers", layout.workers);
  if (layout.groups !== undefined) out.groups = upperLays ? layout.groups : layout.groups.map((group) => overGroup(group, upper));
  const upperDirections = directional(upper);
  const lowerDirections = directional(lower);
  const send = upperDirections.send ?? lowerDirections.send;
  const receive = upperDirections.receive ?? lowerDirections.receive;
  // Where a direction is undefined, so is `bandwidth` (a layer's bandwidth gives both).
  if (send !== undefined && send !== out.bandwidth) out.sendBandwidth = send;
  if (receive !== undefined && receive !== out.bandwidth) out.receiveBandwidth = receive;
  return out;
}

function section<T extends object>(lower: T | undefined, upper: T | undefined): T | undefined {
  if (lower === undefined) return upper;
  return upper === undefined ? lower : mergeSection(lower, [upper]);
}

type GroupSpec = NonNullable<ClusterSpec["groups"]>[number];

/** A group of a lower layer's layout with what a layer above it sets for every group. */
function overGroup(group: GroupSpec, upper: ClusterSpec): GroupSpec {
  const directions = directional(upper);
  if (upper.threads === undefined && upper.memoryLimit === undefined && directions.send === undefined && directions.receive === undefined) return group;
  const out: GroupSpec = { ...group };
  if (upper.threads !== undefined) out.threads = upper.threads;
  if (upper.memoryLimit !== undefined) out.memoryLimit = upper.memoryLimit;
  if (directions.send !== undefined) out.sendBandwidth = directions.send;
  if (directions.receive !== undefined) out.receiveBandwidth = directions.receive;
  return out;
}
