// SpillBuffer benchmarks (`npm run bench -- spill`, or alone: `node --import tsx --expose-gc bench/spill.ts`).
// The same two workloads as /work/shared/bench/dask_spill_bench.py, each beside its baseline:
//   spill-fast:  N set/get/delete of 100-byte values with no spilling, against a bare Map
//                doing the same operations (goal: ≥ 50% of the Map's ops/s).
//   spill-heavy: 20,000 values of 64 KiB, target = a quarter of their total, then every value
//                read back once in a seeded shuffled order, against writeFileSync/readFileSync
//                of the same serialized bytes (goal: ≤ 1.5× the raw file I/O time).
// spill-heavy runs the buffer over the default FileStore (layout "keys") and over the
// opt-in layout "slots" (one record each), and replays the exact file operations the buffer
// made (writes, reads and unlinks) with bare fs calls: `ratio_to_same_file_ops` is the
// buffer's own overhead.
// No timed phase follows a mass unlink: the files of a finished phase are truncated to 0
// bytes and only unlinked after the last timed phase (the replays, whose own unlinks are
// part of what they measure, run after every raw and buffer round). On ext4 without a
// journal (this machine's /) creating a file scans past every inode freed in the last
// ~35 s (find_inode_bit → recently_deleted), so a phase run right after another phase's
// cleanup paid up to 10x per file create; see docs/spill.md.
// Options: --only fast|heavy, --fast-n N, --heavy-n N, --heavy-repeat R (median of R rounds
// of raw then the buffer, then R replays), --layout keys|slots|both (default both),
// --value-bytes B, --repeat R (spill-fast), --dir PATH (where spill files go; default
// os.tmpdir()), --dask (also run dask's reference with /usr/bin/python3 when
// python3-distributed is installed).
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { FileStore, SpillBuffer, v8Serializer, type FileStoreLayout, type SpillStore } from "../src/spill/index.js";
import { parseSuiteOptions, runFromCommandLine, type OptionSpecs, type OptionValues } from "./options.js";
import { collectGarbage, median, round } from "./support.js";

export const OPTIONS = {
  only: { kind: "string", choices: ["fast", "heavy"] },
  "fast-n": { kind: "integer", default: 200_000 },
  "heavy-n": { kind: "integer", default: 20_000 },
  "heavy-repeat": { kind: "integer", default: 1 },
  "value-bytes": { kind: "integer", default: 64 * 1024 },
  repeat: { kind: "integer", default: 5 },
  dir: { kind: "string", default: os.tmpdir() },
  layout: { kind: "string", default: "both", choices: ["keys", "slots", "both"] },
  dask: { kind: "boolean" },
} as const satisfies OptionSpecs;

interface Options extends Omit<OptionValues<typeof OPTIONS>, "only" | "layout"> {
  only: "fast" | "heavy" | undefined;
  layouts: FileStoreLayout[];
}

export function parse(argv: readonly string[]): Options {
  const { only, layout, ...values } = parseSuiteOptions("spill", OPTIONS, argv);
  return {
    ...values,
    only: only as "fast" | "heavy" | undefined,
    layouts: layout === "both" ? ["keys", "slots"] : [layout as FileStoreLayout],
  };
}

const now = (): number => performance.now() / 1000;
const collect = collectGarbage;


function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function shuffled(n: number, seed: number): number[] {
  const order = Array.from({ length: n }, (_, i) => i);
  const random = mulberry32(seed);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  return order;
}

function emit(record: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify(record)}\n`);
}

const OP_WRITE = 0;
const OP_READ = 1;
const OP_DELETE = 2;

/**
 * Store operations as (kind, key index, byte length) in typed arrays: the logs of every
 * round are kept for the replays, and as objects they would grow the heap that each of
 * the buffer's garbage collections marks (a later round would run slower than an earlier).
 */
class OperationLog {
  length = 0;
  private kinds = new Uint8Array(1 << 16);
  private keyIndexes = new Int32Array(1 << 16);
  private byteLengths = new Float64Array(1 << 16);

  push(kind: number, keyIndex: number, byteLength: number): void {
    if (this.length === this.kinds.length) this.grow();
    this.kinds[this.length] = kind;
    this.keyIndexes[this.length] = keyIndex;
    this.byteLengths[this.length] = byteLength;
    this.length++;
  }

  at(i: number): { kind: number; keyIndex: number; byteLength: number } {
    return { kind: this.kinds[i]!, keyIndex: this.keyIndexes[i]!, byteLength: this.byteLengths[i]! };
  }

  private grow(): void {
    const kinds = new Uint8Array(this.kinds.length * 2);
    const keyIndexes = new Int32Array(this.keyIndexes.length * 2);
    const byteLengths = new Float64Array(this.byteLengths.length * 2);
    kinds.set(this.kinds);
    keyIndexes.set(this.keyIndexes);
    byteLengths.set(this.byteLengths);
    this.kinds = kinds;
    this.keyIndexes = keyIndexes;
    this.byteLengths = byteLengths;
  }
}

/**
 * A FileStore that also notes every operation (its kind, key and byte count), so that the
 * same file I/O can be replayed raw. It keeps no reference to the bytes: holding every
 * frame written would keep each value read back alive for the whole run, and the buffer
 * would be measured with a heap that never frees (fresh pages for every read, longer GCs).
 * `close()` empties the files, then closes the FileStore, whose removal of the directory
 * the benchmark defers (see `deferredRemoval`).
 */
class RecordingStore implements SpillStore {
  readonly log = new OperationLog();
  constructor(
    private readonly inner: FileStore,
    private readonly keyIndex: ReadonlyMap<string, number>,
  ) {}
  read(key: string, byteLength?: number): Uint8Array {
    this.note(OP_READ, key, byteLength ?? -1);
    return this.inner.read(key, byteLength);
  }
  readFrames(key: string, frameLengths: readonly number[]): Uint8Array[] {
    this.note(OP_READ, key, -1);
    return this.inner.readFrames(key, frameLengths);
  }
  write(key: string, bytes: Uint8Array): void {
    this.note(OP_WRITE, key, bytes.byteLength);
    this.inner.write(key, bytes);
  }
  writeFrames(key: string, frames: readonly Uint8Array[]): void {
    let byteLength = 0;
    for (const frame of frames) byteLength += frame.byteLength;
    this.note(OP_WRITE, key, byteLength);
    this.inner.writeFrames(key, frames);
  }
  delete(key: string): void {
    this.note(OP_DELETE, key, -1);
    this.inner.delete(key);
  }
  close(): void {
    emptyFiles(this.inner.path);
    this.inner.close();
  }
  private note(kind: number, key: string, byteLength: number): void {
    this.log.push(kind, this.keyIndex.get(key)!, byteLength);
  }
}

/** Truncates every file in `dir` to 0 bytes: frees the space but unlinks nothing (see the header). */
function emptyFiles(dir: string): void {
  for (const name of fs.readdirSync(dir)) fs.truncateSync(path.join(dir, name), 0);
}

function spillFast(options: Options): void {
  const n = options.fastN;
  const keys = Array.from({ length: n }, (_, i) => `k${i}`);
  const values = Array.from({ length: n }, () => Buffer.alloc(100, 0x78));
  const ours: number[] = [];
  const bare: number[] = [];
  // Both sides consume what get returns, so the JIT cannot drop the bare Map's reads.
  let sink = 0;
  for (let r = 0; r < options.repeat; r++) {
    collect();
    const map = new Map<string, unknown>();
    let t = now();
    for (let i = 0; i < n; i++) map.set(keys[i]!, values[i]);
    for (let i = 0; i < n; i++) sink += (map.get(keys[i]!) as Buffer).byteLength;
    for (let i = 0; i < n; i++) map.delete(keys[i]!);
    bare.push(now() - t);

    collect();
    const buf = new SpillBuffer({ target: 1e12, directory: options.dir });
    t = now();
    for (let i = 0; i < n; i++) buf.set(keys[i]!, values[i]);
    for (let i = 0; i < n; i++) sink += (buf.get(keys[i]!) as Buffer).byteLength;
    for (let i = 0; i < n; i++) buf.delete(keys[i]!);
    ours.push(now() - t);
    buf.close();
  }
  const seconds = median(ours);
  const mapSeconds = median(bare);
  emit({
    bench: "spill-fast",
    impl: "spanwork",
    ops: 3 * n,
    seconds: round(seconds, 4),
    ops_per_s: Math.round((3 * n) / seconds),
    bare_map_seconds: round(mapSeconds, 4),
    bare_map_ops_per_s: Math.round((3 * n) / mapSeconds),
    ratio_to_map: round(mapSeconds / seconds, 3),
    goal: "ratio_to_map >= 0.5",
    repeat: options.repeat,
  });
  if (sink !== 2 * 100 * n * options.repeat) throw new Error("spill-fast read back the wrong values");
}

// Before each timed phase: collect garbage and flush dirty pages (tmpfs has none), so that
// no phase pays for writing back the files of the one before it.
function settle(): void {
  collect();
  spawnSync("sync");
}

function spillHeavy(options: Options): void {
  const n = options.heavyN;
  const size = options.valueBytes;
  const keys = Array.from({ length: n }, (_, i) => `k${i}`);
  const indexOf = new Map(keys.map((k, i) => [k, i]));
  const values = Array.from({ length: n }, () => randomBytes(size));
  const order = shuffled(n, 0);
  // target in sizeof units: a quarter of what the values weigh.
  const target = Math.floor((n * (size + 64)) / 4);
  // The raw baseline writes exactly the bytes the buffer writes for each value.
  const serialized = values.map((v) => v8Serializer.dump(v));
  // Directories of finished phases, emptied, removed after the last timed phase.
  const deferred: Array<() => void> = [];
  // A closed FileStore's removal of its directory (its descriptors are closed, its index dropped).
  const deferredRemoval = (dir: fs.PathLike): void => {
    deferred.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  };

  // Raw: each value's bytes written with writeFileSync to its own file, then read back once
  // in the shuffled order with readFileSync (cleanup not timed, like the buffer's close).
  const rawRun = (): number => {
    const rawDir = fs.mkdtempSync(path.join(options.dir, "spanwork-raw-"));
    const t = now();
    for (let i = 0; i < n; i++) fs.writeFileSync(path.join(rawDir, String(i)), serialized[i]!);
    for (const i of order) fs.readFileSync(path.join(rawDir, String(i)));
    const seconds = now() - t;
    emptyFiles(rawDir);
    deferred.push(() => fs.rmSync(rawDir, { recursive: true, force: true }));
    return seconds;
  };

  type BufferRun = { seconds: number; log: OperationLog; inSlow: number; metrics: Map<string, number> };
  const bufferRun = (layout: FileStoreLayout): BufferRun => {
    const store = new RecordingStore(new FileStore({ directory: options.dir, layout, fs: { rmSync: deferredRemoval } }), indexOf);
    const buf = new SpillBuffer({ target, store });
    const t = now();
    for (let i = 0; i < n; i++) buf.set(keys[i]!, values[i]);
    for (const i of order) buf.get(keys[i]!);
    const seconds = now() - t;
    const result = { seconds, log: store.log, inSlow: buf.slow.size, metrics: buf.cumulativeMetrics };
    buf.close();
    return result;
  };

  // The same file operations the buffer made (its writes, reads and deletes, in order),
  // done with bare writeFileSync/readFileSync/unlinkSync: what dask's rules cost in I/O
  // alone, so seconds / this = the buffer's own overhead (or gain, from recycling files).
  // A write of key k_i writes serialized[i]: the bytes the buffer wrote (checked by length).
  const replayRun = (log: OperationLog): number => {
    const replayDir = fs.mkdtempSync(path.join(options.dir, "spanwork-replay-"));
    const replay = Array.from({ length: log.length }, (_, n) => {
      const { kind, keyIndex: i, byteLength } = log.at(n);
      if (kind === OP_WRITE && byteLength !== serialized[i]!.byteLength) {
        throw new Error(`spill-heavy: the buffer wrote ${byteLength} bytes for ${keys[i]}, not the ${serialized[i]!.byteLength} of its serialized value`);
      }
      return { kind, file: path.join(replayDir, String(i)), bytes: serialized[i]! };
    });
    settle();
    const t = now();
    for (const { kind, file, bytes } of replay) {
      if (kind === OP_WRITE) fs.writeFileSync(file, bytes);
      else if (kind === OP_READ) fs.readFileSync(file);
      else fs.unlinkSync(file);
    }
    const seconds = now() - t;
    emptyFiles(replayDir);
    deferred.push(() => fs.rmSync(replayDir, { recursive: true, force: true }));
    return seconds;
  };

  const raws: number[] = [];
  const runs = new Map<FileStoreLayout, BufferRun[]>(options.layouts.map((layout) => [layout, []]));
  const replays: number[] = [];
  try {
    for (let r = 0; r < options.heavyRepeat; r++) {
      settle();
      raws.push(rawRun());
      // Alternate which layout runs first, so that neither always follows the raw run.
      const layouts = r % 2 === 0 ? options.layouts : [...options.layouts].reverse();
      for (const layout of layouts) {
        settle();
        runs.get(layout)!.push(bufferRun(layout));
      }
    }
    // The store API sees the same operations whatever the layout: replay the first one's.
    const replayed = runs.get(options.layouts[0]!)!;
    for (const run of replayed) replays.push(replayRun(run.log));
  } finally {
    for (const remove of deferred) remove();
  }

  const raw = median(raws);
  const sameOps = median(replays);
  for (const [layout, layoutRuns] of runs) {
    const last = layoutRuns[layoutRuns.length - 1]!;
    const { inSlow, metrics } = last;
    const ratios = layoutRuns.map((run, r) => run.seconds / raws[r]!);
    emit({
      bench: "spill-heavy",
      impl: "spanwork",
      store_layout: layout,
      n,
      value_bytes: size,
      dir: options.dir,
      seconds: round(median(layoutRuns.map((run) => run.seconds)), 3),
      raw_file_io_seconds: round(raw, 3),
      ratio_to_raw: round(median(ratios), 2),
      goal: "ratio_to_raw <= 1.5",
      same_file_ops_seconds: round(sameOps, 3),
      ratio_to_same_file_ops: round(median(layoutRuns.map((run, r) => run.seconds / replays[r]!)), 2),
      repeat: layoutRuns.length,
      ratios_to_raw: ratios.map((ratio) => round(ratio, 2)),
      seconds_by_round: layoutRuns.map((run) => round(run.seconds, 3)),
      raw_seconds_by_round: raws.map((seconds) => round(seconds, 3)),
      same_file_ops_seconds_by_round: replays.map((seconds) => round(seconds, 3)),
      in_slow_at_end: inSlow,
      disk_writes: metrics.get("disk-write/count") ?? 0,
      disk_reads: metrics.get("disk-read/count") ?? 0,
      mb_per_s: round(((metrics.get("disk-write/bytes") ?? 0) + (metrics.get("disk-read/bytes") ?? 0)) / 1e6 / last.seconds, 1),
      seconds_by_activity: Object.fromEntries(
        [...metrics].filter(([k]) => k.endsWith("/seconds")).map(([k, v]) => [k.slice(0, -"/seconds".length), round(v, 3)]),
      ),
    });
  }
}

function daskReference(): void {
  const script = "/work/shared/bench/dask_spill_bench.py";
  const probe = spawnSync("/usr/bin/python3", ["-c", "import distributed.spill"], { encoding: "utf8" });
  if (probe.error !== undefined || probe.status !== 0) {
    emit({ bench: "spill-dask", impl: "dask", skipped: "python3-distributed is not installed (apt-get install -y python3-distributed)" });
    return;
  }
  const result = spawnSync("/usr/bin/python3", [script], { encoding: "utf8", maxBuffer: 1 << 20 });
  if (result.status !== 0) {
    emit({ bench: "spill-dask", impl: "dask", failed: (result.stderr || "").trim().split("\n").slice(-1)[0] ?? "" });
    return;
  }
  for (const line of result.stdout.split("\n")) {
    if (line.trim() === "") continue;
    emit({ ...(JSON.parse(line) as Record<string, unknown>), impl: "dask" });
  }
}


export async function run(argv: string[]): Promise<void> {
  const options = parse(argv);
  if (options.only !== "heavy") spillFast(options);
  if (options.only !== "fast") spillHeavy(options);
  if (options.dask) daskReference();
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await runFromCommandLine(run);
