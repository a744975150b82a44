// fidelity/tools/wire_probe.py's split of a wire by what ran beside it, and run_spread.mjs's
// per-run figures: synthetic inputs whose every figure is known by hand (no dask is run).
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const PYTHON = process.env.SPANWORK_PYTHON ?? "/usr/bin/python3";
const dir = mkdtempSync(join(tmpdir(), "spanwork-wire-tools-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("wire_probe.py states", () => {
  // One 10 ms wire into A from B: B deserialises its own message 2-4 ms in (hold), a wire into
  // B moves 6-8 ms (duplex), a build on A runs 8.5-9.5 ms (build); A's recv calls land in each.
  const script = `
import json, sys
sys.path.insert(0, ${JSON.stringify(join(ROOT, "fidelity", "tools"))})
import wire_probe as w
ts = [
    {"to": "A", "from": "B", "wire_start": 0.0, "wire_ms": 10.0},
    {"to": "B", "from": "A", "wire_start": 0.006, "wire_ms": 2.0},
]
probe = {
    "A": {"io": [(0.001, 1e-4, "recv", 1000000, 7), (0.003, 1e-4, "recv", 500000, 7), (0.007, 1e-4, "recv", 2000000, 7),
                 (0.009, 1e-4, "recv", 4000000, 7), (0.0091, 1e-4, "recv", 300000, 9), (0.005, 1e-4, "send-block", 0, 7)],
          "builds": [(0.0085, 0.0095, 3000000, "t", 0.001)]},
    "B": {"io": [], "builds": []},
}
events = {"A": [], "B": [(0.002, "read-bytes", 1), (0.004, "read-deserialised", 1)]}
w.states(ts, probe, events)
print(json.dumps(ts[0]["wire_states"]))
`;
  const run = spawnSync(PYTHON, ["-c", script], { encoding: "utf8", env: { ...process.env, PYTHONPATH: "/work/shared/fidelity" } });

  it("splits the window's time and the receiver's bytes by state, on the fd that moved most", () => {
    expect(run.stderr).toBe("");
    const s = JSON.parse(run.stdout) as Record<string, [number, number]>;
    expect(s.hold[0]).toBe(500000);
    expect(s.duplex[0]).toBe(2000000);
    expect(s.build[0]).toBe(4000000); // the 300 kB on fd 9 is another stream's
    expect(s.alone[0]).toBe(1000000);
    expect(s.hold[1]).toBeCloseTo(0.002, 3);
    expect(s.duplex[1]).toBeCloseTo(0.002, 3);
    expect(s.build[1]).toBeCloseTo(0.001, 3);
    expect(s.alone[1]).toBeCloseTo(0.005, 3);
  });
});

describe("run_spread.mjs", () => {
  const t = (keys: number, bytes: number, duration: number) => ({ from: "a", to: "b", keys, bytes, start: 0, duration });
  const raw = join(dir, "raw.json");
  writeFileSync(raw, JSON.stringify({
    runs: [
      { makespan: 7.0, transfers: [t(10, 30e6, 0.1), t(10, 30e6, 0.05)] },
      { makespan: 7.5, transfers: [t(15, 45e6, 0.3), t(16, 45e6, 0.2), t(17, 45e6, 0.25)] },
    ],
  }));
  const out = spawnSync(process.execPath, [join(ROOT, "fidelity", "tools", "run_spread.mjs"), dir, "shuffle-s1", "--seeds", "0", "--raw", raw], { encoding: "utf8" });

  it("prints each run's messages, median keys, bytes over summed durations and makespan, then their spread", () => {
    expect(out.status).toBe(0);
    const lines = out.stdout.trim().split("\n");
    expect(lines[0]).toBe("shuffle-s1 dask: 2 runs");
    expect(lines[1]).toContain("2 messages, median 10 keys, 400 MB/s, makespan 7.000 s");
    expect(lines[2]).toContain("3 messages, median 16 keys, 180 MB/s, makespan 7.500 s");
    expect(lines[3]).toContain("messages 2.0 / 2.5 / 3.0, MB/s 180 / 290 / 400, makespan 7.000 / 7.250 / 7.500");
  });

  it("rejects a bad seed count with one line and exit 2", () => {
    const bad = spawnSync(process.execPath, [join(ROOT, "fidelity", "tools", "run_spread.mjs"), dir, "shuffle-s1", "--seeds", "x"], { encoding: "utf8" });
    expect(bad.status).toBe(2);
    expect(bad.stderr.trim().split("\n")).toHaveLength(1);
  });
});
