// The soak command: its options, a small clean soak, and a failure with the command that
// replays it (a broken store makes the WorkerState part fail on purpose).
import { spawnSync } from "node:child_process";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { freshWorkerState } from "../../src/testing/index.js";
import { LeakyStore } from "./helpers.js";
import { SoakUsageError, batchSeed, parseSoakArgs, runSoak, type SoakOptions } from "./soak.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

function parse(...argv: string[]): SoakOptions {
  const options = parseSoakArgs(argv, () => 42);
  if (options === "help") throw new Error("help");
  return options;
}

async function soak(options: SoakOptions, hooks = {}): Promise<{ code: number; lines: string[] }> {
  const lines: string[] = [];
  let clock = 0;
  const code = await runSoak(options, { log: (line) => lines.push(line), now: () => (clock += 0.01) }, hooks);
  return { code, lines };
}

describe("soak options", () => {
  it("defaults to a million stimuli, one cluster run per 5,000, and a fresh seed", () => {
    expect(parse()).toEqual({ events: 1_000_000, seed: 42, clusterRuns: 200, only: null, replay: null });
    expect(parse("--events", "1e5", "--seed", "7")).toEqual({ events: 100_000, seed: 7, clusterRuns: 20, only: null, replay: null });
    expect(parse("--events=2_000", "--cluster-runs", "0", "--only", "state")).toMatchObject({ events: 2000, clusterRuns: 0, only: "state" });
    expect(parse("--replay", "cluster", "--seed=-5", "--path", "0:1")).toMatchObject({ seed: -5, only: "cluster", replay: { part: "cluster", path: "0:1" } });
    expect(parseSoakArgs(["--help"], () => 1)).toBe("help");
  });

  it("names a bad option in one line", () => {
    const cases: Array<[string[], RegExp]> = [
      [["--events", "many"], /^--events must be an integer from 1 to 1000000000000, got "many"$/],
      [["--events", "0"], /^--events must be an integer/],
      [["--events", "1.5"], /^--events must be an integer/],
      [["--seed", "x"], /^--seed must be an integer/],
      [["--seed", "-5"], /^Option '--seed' argument is ambiguous\. To specify an option argument starting with a dash use '--seed=-XYZ'\.$/],
      [["--only", "both"], /^--only must be state or cluster, got "both"$/],
      [["--replay", "state"], /^--replay needs --seed and --path/],
      [["--replay", "state", "--seed", "1", "--path", "a:b"], /^--path must be fast-check's path/],
      [["--path", "1:2"], /^--path only goes with --replay$/],
      [["--frobnicate"], /^Unknown option '--frobnicate'/],
      [["extra"], /^Unexpected argument 'extra'/],
    ];
    for (const [argv, message] of cases) {
      expect(() => parseSoakArgs(argv, () => 1), argv.join(" ")).toThrow(SoakUsageError);
      expect(() => parseSoakArgs(argv, () => 1), argv.join(" ")).toThrow(message);
    }
  });

  it("derives a distinct seed per batch and part", () => {
    const seeds = new Set([0, 1, 2, 3].flatMap((i) => [batchSeed(9, "state", i), batchSeed(9, "cluster", i)]));
    expect(seeds.size).toBe(8);
    expect(batchSeed(9, "state", 2)).toBe(batchSeed(9, "state", 2));
  });

  it("exits 2 with one line and the usage on a bad command line", () => {
    const child = spawnSync(process.execPath, ["--import", "tsx", "scripts/soak.ts", "--events", "lots"], { cwd: root, encoding: "utf8", timeout: 60_000 });
    expect(child.status).toBe(2);
    expect(child.stdout).toBe("");
    expect(child.stderr.split("\n")[0]).toBe('soak: --events must be an integer from 1 to 1000000000000, got "lots"');
    expect(child.stderr.split("\n")[1]).toMatch(/^usage: npm run soak -- /);
  });
});

describe("soak", () => {
  it("runs both parts to their targets and reports a clean soak", async () => {
    const { code, lines } = await soak(parse("--events", "2000", "--cluster-runs", "2", "--seed", "1"));
    expect(code).toBe(0);
    expect(lines[0]).toMatch(/^soak seed 1: 2,000 WorkerState stimuli, 2 cluster runs \(load [\d.]+\)$/);
    expect(lines[1]).toBe("replay the whole soak: npm run soak -- --events 2000 --seed 1 --cluster-runs 2");
    const summary = lines.at(-1) ?? "";
    expect(summary).toMatch(/^soak clean: [\d,]+ WorkerState stimuli in [\d,]+ runs, 2 cluster runs \(instant \d+, latency-bandwidth \d+, max-min \d+, shared-host \d+\) in [\d.]+ s, load [\d.]+$/);
    expect(Number(/clean: ([\d,]+)/.exec(summary)?.[1]?.replaceAll(",", ""))).toBeGreaterThanOrEqual(2000);
  });

  it("replays one cluster run by its seed and path", async () => {
    const seed = batchSeed(1, "cluster", 0);
    const { code, lines } = await soak(parse("--replay", "cluster", `--seed=${seed}`, "--path", "0"));
    expect(code).toBe(0);
    expect(lines).toEqual([`replayed the cluster case (seed ${seed}, path 0): it passes now`]);
  });

  it("on a failure, prints the shrunk case and the command that replays it", async () => {
    const broken = { workerState: (options: object) => freshWorkerState({ ...options, data: new LeakyStore() }) };
    const { code, lines } = await soak(parse("--events", "100000", "--cluster-runs", "0", "--seed", "3"), broken);
    expect(code).toBe(1);
    const text = lines.join("\n");
    expect(text).toMatch(/state part FAILED:\ninvariant broken at stimulus \d+: invalid worker state: data holds unknown key/);
    const replay = /^replay: npm run soak -- (--replay state --seed=(-?\d+) --path ([\d:]+))$/m.exec(text);
    expect(replay).not.toBeNull();
    // the printed command replays the same failure, in one run
    const again = await soak(parse(...(replay?.[1] ?? "").split(" ")), broken);
    expect(again.code).toBe(1);
    expect(again.lines.join("\n")).toContain(text.slice(text.indexOf("invariant broken"), text.indexOf("\nfast-check parameters")));
    // and says so once the bug is gone
    const fixed = await soak(parse(...(replay?.[1] ?? "").split(" ")));
    expect(fixed.code).toBe(0);
    expect(fixed.lines).toEqual([`replayed the state case (seed ${replay?.[2]}, path ${replay?.[3]}): it passes now`]);
  });
});
