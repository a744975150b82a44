// `--trace` lines of the state benchmark, in the format of dask_wsm_bench.py's --trace (so
// the two can be diffed): one line per event, one indented line per instruction it produced.
import type { Instruction, StateMachineEvent } from "../src/state/index.js";

export function formatEvent(ev: StateMachineEvent): string {
  switch (ev.kind) {
    case "ComputeTaskEvent": {
      const deps = Object.keys(ev.whoHas)
        .sort()
        .map((k) => `${k}@${(ev.whoHas[k] as readonly string[]).join("|")}`)
        .join(",");
      return `${ev.kind} ${ev.key} prio=[${ev.priority.join(", ")}] deps=[${deps}]`;
    }
    case "ExecuteSuccessEvent":
      return `${ev.kind} ${ev.key} nbytes=${ev.nbytes}`;
    case "GatherDepSuccessEvent":
      return `${ev.kind} ${ev.worker} keys=[${Object.keys(ev.data).sort().join(", ")}] total_nbytes=${ev.totalNbytes}`;
    case "FreeKeysEvent":
      return `${ev.kind} keys=[${ev.keys.join(", ")}]`;
    default:
      return ev.kind;
  }
}

export function formatInstruction(ins: Instruction): string {
  switch (ins.kind) {
    case "GatherDep":
      return `${ins.kind} ${ins.worker} keys=[${[...ins.toGather].sort().join(", ")}] total_nbytes=${ins.totalNbytes}`;
    case "TaskFinishedMsg":
      return `${ins.kind} ${ins.key} nbytes=${ins.nbytes}`;
    default:
      if ("key" in ins) return `${ins.kind} ${ins.key}`;
      if ("keys" in ins) return `${ins.kind} keys=[${[...ins.keys].sort().join(", ")}]`;
      return ins.kind;
  }
}
