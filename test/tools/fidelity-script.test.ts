// scripts/fidelity.mjs's --replay and --jitter simulate the graph dask ran as a per-task table:
// each row must keep what its group in the spec says of how the task spends its time (`cpu`,
// `gil`, `buildBandwidth`). A row without `cpu` is all CPU: under a host model that is another
// workload (the contended chain ran about 3x its length).
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "spanwork-fidelity-script-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A set of one case, chain-s1 of fidelity/contended, and a profile with a busy 2-core host. */
function oneCaseSet(): { set: string; profile: string } {
  const from = join(ROOT, "fidelity", "contended");
  const set = join(dir, "set");
  for (const sub of ["specs", "graphs", join("real", "raw")]) mkdirSync(join(set, sub), { recursive: true });
  cpSync(join(from, "specs", "chain.json"), join(set, "specs", "chain.json"));
  for (const f of ["graphs", "real", join("real", "raw")]) cpSync(join(from, f, "chain-s1.json"), join(set, f, "chain-s1.json"));
  const profile = join(dir, "profile.yaml");
  // The contended set's profile: the quiet one with its host's load at 2.0.
  const quiet = readFileSync(join(ROOT, "profiles", "dask-localcluster-2x2-quiet.yaml"), "utf8");
  expect(quiet).toMatch(/^ {2}load: 0$/m);
  writeFileSync(profile, quiet.replace(/^ {2}load: 0$/m, "  load: 2.0"));
  return { set, profile };
}

describe("scripts/fidelity.mjs task tables", () => {
  it("replayed and jittered runs keep the spec's cpu share: under a host model they run as long as the spec", () => {
    const { set, profile } = oneCaseSet();
    const run = (...flags: string[]): { nominal: number; sample?: number } => {
      const json = join(dir, `out-${flags.join("")}.json`);
      const child = spawnSync(process.execPath, [join(ROOT, "scripts", "fidelity.mjs"), "--cluster", profile, "--json", json, ...flags, set], { encoding: "utf8" });
      expect(child.status, child.stderr).toBe(0);
      const row = (JSON.parse(readFileSync(json, "utf8")) as { sim: { makespan: number }; jitter?: { makespan: number }[] }[])[0]!;
      return { nominal: row.sim.makespan, ...(row.jitter === undefined ? {} : { sample: row.jitter[0].makespan }) };
    };
    const { nominal, sample } = run("--jitter", "1", "--samples", "1");
    const replayed = run("--replay").nominal;
    // 50 sleeps of 100 ms: the spec's run, a ±1 ms sample and the replay (measured durations) all near 5 s.
    expect(nominal).toBeGreaterThan(5);
    expect(nominal).toBeLessThan(5.5);
    expect(Math.abs(sample! / nominal - 1)).toBeLessThan(0.02);
    expect(Math.abs(replayed / nominal - 1)).toBeLessThan(0.05);
  }, 60_000);

  it("--jitter 0 --reseed moves only the run's seed: sample 1 is the case's own run (seed 1), sample 2 draws anew", () => {
    const { set, profile } = oneCaseSet();
    const json = join(dir, "out-reseed.json");
    const child = spawnSync(process.execPath, [join(ROOT, "scripts", "fidelity.mjs"), "--cluster", profile, "--json", json, "--jitter", "0", "--reseed", "--samples", "2", set], { encoding: "utf8" });
    expect(child.status, child.stderr).toBe(0);
    const row = (JSON.parse(readFileSync(json, "utf8")) as { sim: { makespan: number }; jitter: { makespan: number }[] }[])[0]!;
    expect(row.jitter[0]!.makespan).toBe(row.sim.makespan);
    // The profile's taskOverrun is drawn per task from the run's seed: seed 2 lands elsewhere.
    expect(row.jitter[1]!.makespan).not.toBe(row.sim.makespan);
    const alone = spawnSync(process.execPath, [join(ROOT, "scripts", "fidelity.mjs"), "--jitter", "0", set], { encoding: "utf8" });
    expect(alone.status).toBe(2);
    expect(alone.stderr).toMatch(/--jitter 0: .*--reseed/);
  }, 60_000);

  it("--competition runs each set it names at its own runs' load in place of the profile's host.load", () => {
    const { set, profile } = oneCaseSet();
    const makespan = (args: string[], name: string): number => {
      const json = join(dir, `out-${name}.json`);
      const child = spawnSync(process.execPath, [join(ROOT, "scripts", "fidelity.mjs"), ...args, "--json", json, set], { encoding: "utf8" });
      expect(child.status, child.stderr).toBe(0);
      return (JSON.parse(readFileSync(json, "utf8")) as { sim: { makespan: number } }[])[0]!.sim.makespan;
    };
    // The set's runs met 0.5 others: the same run as a profile whose host says 0.5 (the one-case profile says 2.0).
    const competition = join(dir, "competition.json");
    writeFileSync(competition, JSON.stringify({ sets: { [set]: { median: 0.5, cases: {} } } }));
    const atHalf = join(dir, "profile-half.yaml");
    writeFileSync(atHalf, readFileSync(profile, "utf8").replace(/\n {2}load: 2\.0\n/, "\n  load: 0.5\n"));
    const read = makespan(["--cluster", profile, "--competition", competition], "competition");
    expect(read).toBe(makespan(["--cluster", atHalf], "half"));
    expect(read).not.toBe(makespan(["--cluster", profile], "two"));
    // A set it does not name keeps the profile's load; without a host section there is nothing to replace.
    writeFileSync(competition, JSON.stringify({ sets: { elsewhere: { median: 0.5 } } }));
    expect(makespan(["--cluster", profile, "--competition", competition], "elsewhere")).toBe(makespan(["--cluster", profile], "two-again"));
    const bare = spawnSync(process.execPath, [join(ROOT, "scripts", "fidelity.mjs"), "--competition", competition, set], { encoding: "utf8" });
    expect(bare.status).toBe(2);
    expect(bare.stderr.trim().split("\n")).toHaveLength(1);
    expect(bare.stderr).toMatch(/--competition: needs --cluster with a profile that has a host section/);
  }, 120_000);
  it("a missing spec, profile or set is one line naming the file and exit 2, not a stack trace", () => {
    const set = join(dir, "no-spec-set");
    mkdirSync(join(set, "real"), { recursive: true });
    cpSync(join(ROOT, "fidelity", "contended", "real", "chain-s1.json"), join(set, "real", "chain-s1.json"));
    const fidelity = (...args: string[]) => spawnSync(process.execPath, [join(ROOT, "scripts", "fidelity.mjs"), ...args], { encoding: "utf8" });
    for (const [args, file] of [
      [[set], join(set, "specs", "chain.json")],
      [["--cluster", join(dir, "no-such-profile.yaml"), set], join(dir, "no-such-profile.yaml")],
      [[join(dir, "no-such-set")], join(dir, "no-such-set", "real")],
    ] as const) {
      const child = fidelity(...args);
      expect(child.status, child.stderr).toBe(2);
      expect(child.stderr.trim().split("\n")).toHaveLength(1);
      expect(child.stderr).toContain(file);
      expect(child.stderr).not.toMatch(/\n\s+at /);
    }
  }, 60_000);
});
