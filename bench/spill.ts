// SpillBuffer benchmarks (`npm run bench -- spill`, or alone: `node --import tsx --expose-gc bench/spill.ts`).
// The same two workloads as /work/shared/bench/dask_spill_bench.py, each beside its baseline:
//   spill-fast:  N set/get/delete of 100-byte values with no spilling, against a bare Map
//                doing the same operations (goal: ≥ 50% of the Map's ops/s).
//   spill-heavy: 20,000 values of 64 KiB, target = a quarter of their total, then every value
//                read back once in a seeded shuffled order, against writeFileSync/readFileSync
//                of the same serialized bytes (goal: ≤ 1.5× the raw file I/O time).
// spill-heavy also replays the exact file operations the buffer made (writes, reads and
// unlinks) with bare fs calls: `ratio_to_same_file_ops` is the buffer's own overhead.
// Options: --only fast|heavy, --fast-n N, --heavy-n N, --heavy-repeat R (median of R runs of
// raw, buffer and replay, in that order), --value-bytes B, --repeat R (spill-fast),
// --dir PATH (where spill files go; default os.tmpdir()), --dask (also run dask's reference
// with /usr/bin/python3 when python3-distributed is installed).
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { FileStore, SpillBuffer, v8Serializer, type SpillStore } from "../src/spill/index.js";
import { median, round } from "./support.js";

interface Options {
  only: "fast" | "heavy" | undefined;
  fastN: number;
  heavyN: number;
  heavyRepeat: number;
  valueBytes: number;
  repeat: number;
  dir: string;
  dask: boolean;
}

function parse(argv: readonly string[]): Options {
  const options: Options = {
    only: undefined,
    fastN: 200_000,
    heavyN: 20_000,
    heavyRepeat: 1,
    valueBytes: 64 * 1024,
    repeat: 5,
    dir: os.tmpdir(),
    dask: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i]!.split("=", 2) as [string, string | undefined];
    const value = (): string => {
      const v = inline ?? argv[++i];
      if (v === undefined) throw new Error(`bench spill: ${flag} needs a value`);
      return v;
    };
    const count = (): number => {
      const v = Number(value());
      if (!Number.isInteger(v) || v <= 0) throw new Error(`bench spill: ${flag} needs a positive integer`);
      return v;
    };
    switch (flag) {
      case "--only": {
        const v = value();
        if (v !== "fast" && v !== "heavy") throw new Error(`bench spill: --only takes fast or heavy, not ${JSON.stringify(v)}`);
        options.only = v;
        break;
      }
      case "--fast-n":
        options.fastN = count();
        break;
      case "--heavy-n":
        options.heavyN = count();
        break;
      case "--heavy-repeat":
        options.heavyRepeat = count();
        break;
      case "--value-bytes":
        options.valueBytes = count();
        break;
      case "--repeat":
        options.repeat = count();
        break;
      case "--dir":
        options.dir = value();
        break;
      case "--dask":
        options.dask = true;
        break;
      default:
        break; // options of other suites
    }
  }
  return options;
}

const now = (): number => performance.now() / 1000;
const collect = (): void => (globalThis as { gc?: () => void }).gc?.();


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

/** A FileStore that also notes every operation, so the same file I/O can be replayed raw. */
class RecordingStore implements SpillStore {
  readonly log: Array<{ op: "write" | "read" | "delete"; key: string; bytes: Uint8Array | readonly Uint8Array[] | null }> = [];
  constructor(private readonly inner: FileStore) {}
  read(key: string, byteLength?: number): Uint8Array {
    this.log.push({ op: "read", key, bytes: null });
    return this.inner.read(key, byteLength);
  }
  readFrames(key: string, frameLengths: readonly number[]): Uint8Array[] {
    this.log.push({ op: "read", key, bytes: null });
    return this.inner.readFrames(key, frameLengths);
  }
  write(key: string, bytes: Uint8Array): void {
    this.log.push({ op: "write", key, bytes });
    this.inner.write(key, bytes);
  }
  writeFrames(key: string, frames: readonly Uint8Array[]): void {
    this.log.push({ op: "write", key, bytes: frames });
    this.inner.writeFrames(key, frames);
  }
  delete(key: string): void {
    this.log.push({ op: "delete", key, bytes: null });
    this.inner.delete(key);
  }
  close(): void {
    this.inner.close();
  }
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
  const values = Array.from({ length: n }, () => randomBytes(size));
  const order = shuffled(n, 0);
  // target in sizeof units: a quarter of what the values weigh.
  const target = Math.floor((n * (size + 64)) / 4);
  // The raw baseline writes exactly the bytes the buffer writes for each value.
  const serialized = values.map((v) => v8Serializer.dump(v));

  // Raw: each value's bytes written with writeFileSync to its own file, then read back once
  // in the shuffled order with readFileSync (cleanup not timed, like the buffer's close).
  const rawRun = (): number => {
    const rawDir = fs.mkdtempSync(path.join(options.dir, "spanwork-raw-"));
    const t = now();
    for (let i = 0; i < n; i++) fs.writeFileSync(path.join(rawDir, String(i)), serialized[i]!);
    for (const i of order) fs.readFileSync(path.join(rawDir, String(i)));
    const seconds = now() - t;
    fs.rmSync(rawDir, { recursive: true, force: true });
    return seconds;
  };

  const bufferRun = (): { seconds: number; store: RecordingStore; inSlow: number; metrics: Map<string, number> } => {
    const store = new RecordingStore(new FileStore({ directory: options.dir }));
    const buf = new SpillBuffer({ target, store });
    const t = now();
    for (let i = 0; i < n; i++) buf.set(keys[i]!, values[i]);
    for (const i of order) buf.get(keys[i]!);
    const seconds = now() - t;
    const result = { seconds, store, inSlow: buf.slow.size, metrics: buf.cumulativeMetrics };
    buf.close();
    return result;
  };

  // The same file operations the buffer made (its writes, reads and deletes, in order),
  // done with bare writeFileSync/readFileSync/unlinkSync: what dask's rules cost in I/O
  // alone, so seconds / this = the buffer's own overhead (or gain, from recycling files).
  const replayRun = (store: RecordingStore): number => {
    const replayDir = fs.mkdtempSync(path.join(options.dir, "spanwork-replay-"));
    const names = new Map(keys.map((k, i) => [k, path.join(replayDir, String(i))]));
    const replay = store.log.map(({ op, key, bytes }) => ({
      op,
      file: names.get(key)!,
      bytes: bytes === null || bytes instanceof Uint8Array ? bytes : Buffer.concat(bytes),
    }));
    settle();
    const t = now();
    for (const { op, file, bytes } of replay) {
      if (op === "write") fs.writeFileSync(file, bytes!);
      else if (op === "read") fs.readFileSync(file);
      else fs.unlinkSync(file);
    }
    const seconds = now() - t;
    fs.rmSync(replayDir, { recursive: true, force: true });
    return seconds;
  };

  const runs: Array<{ raw: number; buffer: number; sameOps: number }> = [];
  let last: ReturnType<typeof bufferRun> | undefined;
  for (let r = 0; r < options.heavyRepeat; r++) {
    settle();
    const raw = rawRun();
    settle();
    last = bufferRun();
    const sameOps = replayRun(last.store);
    runs.push({ raw, buffer: last.seconds, sameOps });
  }
  const { inSlow, metrics } = last!;
  const seconds = median(runs.map((run) => run.buffer));
  const raw = median(runs.map((run) => run.raw));
  const sameOps = median(runs.map((run) => run.sameOps));

  emit({
    bench: "spill-heavy",
    impl: "spanwork",
    n,
    value_bytes: size,
    dir: options.dir,
    seconds: round(seconds, 3),
    raw_file_io_seconds: round(raw, 3),
    ratio_to_raw: round(median(runs.map((run) => run.buffer / run.raw)), 2),
    goal: "ratio_to_raw <= 1.5",
    same_file_ops_seconds: round(sameOps, 3),
    ratio_to_same_file_ops: round(median(runs.map((run) => run.buffer / run.sameOps)), 2),
    repeat: runs.length,
    ratios_to_raw: runs.map((run) => round(run.buffer / run.raw, 2)),
    in_slow_at_end: inSlow,
    disk_writes: metrics.get("disk-write/count") ?? 0,
    disk_reads: metrics.get("disk-read/count") ?? 0,
    mb_per_s: round(((metrics.get("disk-write/bytes") ?? 0) + (metrics.get("disk-read/bytes") ?? 0)) / 1e6 / last!.seconds, 1),
    seconds_by_activity: Object.fromEntries(
      [...metrics].filter(([k]) => k.endsWith("/seconds")).map(([k, v]) => [k.slice(0, -"/seconds".length), round(v, 3)]),
    ),
  });
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

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await run(process.argv.slice(2));
}
