// What describes a cluster — its workers (uniform, or heterogeneous groups), network, disk,
// overheads and memory model — as the `cluster` section of a workload spec and as a
// standalone profile file (`--cluster FILE`), so a cluster calibrated once can be reused
// across workloads. docs/sim.md, "Clusters and profiles". How the layers combine: cluster.ts;
// reading a profile file and the profiles it extends: profile-file.ts.
import { z } from "zod";
import { HOST_CPU_RULES } from "./host-cpu.js";
import { formatLimit, LIMITS } from "./limits.js";
import { NETWORK_KINDS } from "./network/registry.js";
import { PolicySelectionError, isPolicyPath, resolvePolicy } from "./scheduler/registry.js";
import { secondsCost } from "./distribution-spec.js";
import { bytes, count, index, nonNegative, number, parseInto } from "./spec-fields.js";
import { formatPath } from "./spec-checks.js";
import { SpecError } from "./spec-error.js";

const workerCount = count.max(LIMITS.workers, `expected at most ${formatLimit(LIMITS.workers)} workers`);
const threadCount = count.max(LIMITS.threads, `expected at most ${formatLimit(LIMITS.threads)} threads`);
const seconds = nonNegative;

/** One of dask's memory fractions of the limit, or false to turn that threshold off (as dask's config allows). */
const fraction = z.union(
  [
    number("expected a fraction").gt(0, "expected a fraction in (0, 1] or false").max(1, "expected a fraction in (0, 1] or false"),
    z.literal(false),
  ],
  { error: "expected a fraction in (0, 1] or false" },
);

/** Per-worker capacities a group or the whole cluster may set. */
const capacities = {
  /** Bytes/s a worker sends and receives (each direction; sendBandwidth / receiveBandwidth refine it). */
  bandwidth: bytes("positive").optional(),
  sendBandwidth: bytes("positive").optional(),
  receiveBandwidth: bytes("positive").optional(),
};

export const workerGroupSchema = z
  .object({
    name: z.string({ error: "expected a string" }).min(1, "expected a non-empty name").optional(),
    count: workerCount.default(1),
    threads: threadCount.optional(),
    memoryLimit: bytes("positive").nullable().optional(),
    ...capacities,
  })
  .strict();

export const memoryModelSchema = z
  .object({
    target: fraction.optional(),
    spill: fraction.optional(),
    pause: fraction.optional(),
    terminate: fraction.optional(),
    unmanaged: bytes("nonNegative").optional(),
    unmanagedPerTask: bytes("nonNegative").optional(),
    monitorInterval: seconds.optional(),
  })
  .strict();

/**
 * What `reader` reads from a raw value `takes` accepts, or false ("off", "no such cost or limit");
 * any other raw value is the one problem `expected`. Not a z.union: a union's one message would
 * hide the reader's own ("expected a positive size, got -1", "expected a number ≥ 0").
 */
function orFalse<T>(reader: z.ZodType<T>, takes: (raw: unknown) => boolean, expected: string) {
  return z.unknown().transform((raw, ctx): T | false => {
    if (raw === false) return false;
    if (takes(raw)) return parseInto(reader, raw, ctx);
    ctx.addIssue({ code: "custom", message: expected });
    return z.NEVER;
  });
}
const isNumber = (raw: unknown): boolean => typeof raw === "number";

/** Seconds, or false for "off" (0). */
const secondsOrOff = () => orFalse(seconds, isNumber, "expected seconds (a number ≥ 0) or false").transform((value): number => (value === false ? 0 : value));

/** A process's full garbage collections (overheads.ts's GcTerm), or false: none. */
const gcTerm = () =>
  orFalse(
    z.object({ first: count, stop: seconds, every: count.optional() }).strict(),
    (raw) => typeof raw === "object" && raw !== null && !Array.isArray(raw),
    "expected { first: tasks, stop: seconds, every?: tasks } or false",
  );

export const overheadsSchema = z
  .object({
    messageLatency: seconds.optional(),
    schedulerBatch: seconds.optional(),
    workerBatch: seconds.optional(),
    workerHandling: secondsCost.optional(),
    workerMessage: secondsCost.optional(),
    schedulerDecision: seconds.optional(),
    schedulerMessage: seconds.optional(),
    taskOverrun: seconds.optional(),
    connectLatency: seconds.optional(),
    /** Seconds, or false: off (0). */
    switchInterval: secondsOrOff().optional(),
    /** A worker's full collections (first tasks, stop seconds, every further tasks), or false: none. */
    workerGc: gcTerm().optional(),
    /** The scheduler's, counted in the tasks it heard finish, or false: none. */
    schedulerGc: gcTerm().optional(),
  })
  .strict();

export const diskSchema = z
  .object({
    bandwidth: bytes("positive").optional(),
    latency: seconds.optional(),
    hostBandwidth: bytes("positive").nullable().optional(),
    removeLatency: seconds.optional(),
    removeBandwidth: bytes("positive").nullable().optional(),
  })
  .strict();

/**
 * The cores of each host and what else runs there (host-cpu.ts): unset, the cluster's threads
 * never wait for a core. A layer may set some fields; `cores` must be set by one of them.
 */
export const hostSchema = z
  .object({
    cores: count.max(LIMITS.threads, `expected at most ${formatLimit(LIMITS.threads)} cores`).optional(),
    /** Other jobs' runnable threads on each host (a load average). */
    load: nonNegative.optional(),
    /** How a thread that wakes is treated: `lag` (EEVDF's, the default) or `credit` (the rule before it). */
    rule: z.enum(HOST_CPU_RULES, { error: `expected ${HOST_CPU_RULES.join(" or ")}` }).optional(),
    /** `lag`: CPU seconds an eligible thread runs at full speed (default: the kernel's base slice, from cores). */
    slice: seconds.optional(),
    /** `credit`: CPU seconds a thread that slept may run at full speed (default: the kernel's, from cores). */
    credit: seconds.optional(),
    /** The host the scheduler runs on (a LocalCluster: 0, with the workers); null = a host of its own. */
    schedulerHost: index.nullable().optional(),
  })
  .strict();

/** Bytes per second, or false for "no such cost or limit". */
const bytesPerSecondOrFalse = () =>
  orFalse(bytes("positive"), (raw) => typeof raw === "number" || typeof raw === "string", 'expected bytes per second (a number or a size such as "500 MB") or false');

const SIGMA_EXPECTED = "expected a sigma (a number from 0 to 3) or false";
/** A lognormal's sigma (a number from 0 to 3), or false for none. */
const sigmaOrFalse = () => orFalse(number(SIGMA_EXPECTED).min(0, SIGMA_EXPECTED).max(3, SIGMA_EXPECTED), isNumber, SIGMA_EXPECTED);

const clusterFields = {
  workers: workerCount.optional(),
  threads: threadCount.optional(),
  memoryLimit: bytes("positive").nullable().optional(),
  groups: z.array(workerGroupSchema, { error: "expected a list of worker groups" }).min(1, "expected at least one worker group").optional(),
  network: z.enum(NETWORK_KINDS, { error: `expected ${NETWORK_KINDS.slice(0, -1).join(", ")} or ${NETWORK_KINDS.at(-1)}` }).optional(),
  latency: seconds.optional(),
  ...capacities,
  workersPerHost: workerCount.optional(),
  hostBandwidth: bytes("positive").optional(),
  /** Bytes/s each worker's event loop moves, sends and receives together (max-min, shared-host); false = no such limit. */
  loopBandwidth: bytesPerSecondOrFalse().optional(),
  /** Bytes/s a receiving worker deserialises a message at, its GIL held (every network but instant); false = free. */
  deserializeBandwidth: bytesPerSecondOrFalse().optional(),
  /** The sigma of the log of each transfer's wire factor (lognormal, median 1; network/spread.ts); 0 or false = every transfer exact. */
  transferSpread: sigmaOrFalse().optional(),
  disk: diskSchema.optional(),
  host: hostSchema.optional(),
  overheads: overheadsSchema.optional(),
  memory: memoryModelSchema.optional(),
  /** The placement policy (src/sim/scheduler/registry.ts), checked by name and options when the spec or profile is validated. */
  scheduler: z
    .object({
      name: z.string({ error: "expected a policy name or a module path" }).min(1, "expected a policy name or a module path"),
      options: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()]), { error: "expected options as key: value" }).optional(),
    })
    .strict()
    .optional(),
};

function checkLayout(cluster: { workers?: number | undefined; groups?: ReadonlyArray<{ count: number }> | undefined }, ctx: z.RefinementCtx): void {
  if (cluster.groups === undefined) return;
  if (cluster.workers !== undefined) {
    ctx.addIssue({ code: "custom", path: ["groups"], message: "give either workers or groups (each with its count), not both" });
  }
  const total = cluster.groups.reduce((sum, group) => sum + group.count, 0);
  if (total > LIMITS.workers) {
    ctx.addIssue({ code: "custom", path: ["groups"], message: `${formatLimit(total)} workers in all, more than the limit of ${formatLimit(LIMITS.workers)}` });
  }
}

/**
 * `extends` is a profile file's own (profile-file.ts reads it before these schemas see the
 * file). A spec's section cannot extend: the profile is the layer above it, so a base under
 * the spec's own fields would be a second profile layer below them, and a spec built in code
 * has no directory to find the base from.
 */
const INLINE_EXTENDS = "a workload's cluster section cannot extend a profile: give the profile as --cluster FILE (simulate's options.cluster), the layer above this section";
const OBJECT_EXTENDS = "only a profile file can extend another (loadClusterProfile reads the file and its bases into one profile)";

/** The `cluster` section of a workload spec. */
export const clusterSchema = z
  .object({ ...clusterFields, extends: z.never({ error: INLINE_EXTENDS }).optional() })
  .strict()
  .superRefine(checkLayout);

/** A cluster profile file: the same fields at its top level, with a name and a description. */
export const clusterProfileSchema = z
  .object({
    name: z.string({ error: "expected a string" }).optional(),
    description: z.string({ error: "expected a string" }).optional(),
    ...clusterFields,
    extends: z.never({ error: OBJECT_EXTENDS }).optional(),
  })
  .strict()
  .superRefine(checkLayout);

export type ClusterSpec = z.infer<typeof clusterSchema>;
export type ClusterSpecInput = z.input<typeof clusterSchema>;
export type ClusterProfile = z.infer<typeof clusterProfileSchema>;
export type ClusterProfileInput = z.input<typeof clusterProfileSchema>;
export type WorkerGroupSpec = z.infer<typeof workerGroupSchema>;
export type MemoryModelSpec = z.infer<typeof memoryModelSchema>;
export type OverheadsSpec = z.infer<typeof overheadsSchema>;
export type HostSpec = z.infer<typeof hostSchema>;

/** A registered policy's name and options are checked here; a module path when the run loads it. */
export function schedulerProblem(selection: { name: string; options?: Record<string, string | number | boolean> } | undefined, where = "cluster."): string | null {
  if (selection === undefined || isPolicyPath(selection.name)) return null;
  try {
    resolvePolicy(selection);
    return null;
  } catch (error) {
    if (error instanceof PolicySelectionError) return `${where}scheduler: ${error.message}`;
    throw error;
  }
}

/** Checks a cluster profile (a parsed object); throws SpecError naming each bad field by its path (prefixed with `where`, a dotted path). */
export function validateClusterProfile(input: unknown, where = ""): ClusterProfile {
  const parsed = clusterProfileSchema.safeParse(input);
  const prefix = where === "" ? [] : where.split(".");
  if (parsed.success) {
    const problem = schedulerProblem(parsed.data.scheduler, prefix.length === 0 ? "" : `${formatPath(prefix)}.`);
    if (problem !== null) throw new SpecError([problem]);
    return parsed.data;
  }
  throw new SpecError(parsed.error.issues.map((issue) => `${formatPath([...prefix, ...issue.path])}: ${issue.message}`));
}
