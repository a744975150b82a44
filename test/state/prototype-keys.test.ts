// Keys are data: `__proto__`, `constructor`, `toString` are ordinary task keys, resource
// names and metadata names everywhere in src/state (issue 12 item 8 and its audit). One test
// per place that builds or reads a record by key.
import { describe, expect, it } from "vitest";
import {
  AcquireReplicasEvent,
  ComputeTaskEvent,
  Execute,
  ExecuteSuccessEvent,
  GatherDep,
  GatherDepSuccessEvent,
  TaskFinishedMsg,
  UpdateDataEvent,
} from "../../src/state/index.js";
import { W2, worker } from "./helpers.js";

const PROTO_KEYS = ["__proto__", "constructor", "toString"] as const;

/** A record with own properties only (Object.fromEntries defines, never assigns). */
function own<V>(entries: [string, V][]): Record<string, V> {
  return Object.fromEntries(entries);
}

describe("prototype-named keys", () => {
  it("ComputeTaskEvent's default nbytes keeps every key of whoHas", () => {
    const ev = ComputeTaskEvent({ key: "x", whoHas: own(PROTO_KEYS.map((k) => [k, [W2]])), stimulusId: "s" });
    expect(Object.keys(ev.nbytes).sort()).toEqual([...PROTO_KEYS].sort());
    for (const k of PROTO_KEYS) expect(Object.getOwnPropertyDescriptor(ev.nbytes, k)?.value).toBe(1);
    const ws = worker();
    expect(ws.handleStimulus(ev)).toEqual([
      GatherDep({ worker: W2, toGather: ["toString", "constructor", "__proto__"], totalNbytes: 3, stimulusId: "s" }),
    ]);
    for (const k of PROTO_KEYS) expect(ws.tasks.get(k)?.state).toBe("flight");
  });

  it("AcquireReplicasEvent's default nbytes keeps every key of whoHas", () => {
    const ev = AcquireReplicasEvent({ whoHas: own([["__proto__", [W2]]]), stimulusId: "acq" });
    expect(Object.keys(ev.nbytes)).toEqual(["__proto__"]);
    const ws = worker();
    expect(ws.handleStimulus(ev)).toEqual([GatherDep({ worker: W2, toGather: ["__proto__"], totalNbytes: 1, stimulusId: "acq" })]);
  });

  it("the stimulus log strips scattered and gathered values without losing their keys", () => {
    const ws = worker();
    ws.handleStimulus(UpdateDataEvent({ data: own([["__proto__", 1], ["a", 2]]), stimulusId: "scatter" }));
    const logged = ws.stimulusLog[0] as UpdateDataEvent;
    expect(Object.keys(logged.data)).toEqual(["__proto__", "a"]);
    expect(Object.getOwnPropertyDescriptor(logged.data, "__proto__")?.value).toBeNull();

    ws.handleStimulus(AcquireReplicasEvent({ whoHas: own([["constructor", [W2]]]), stimulusId: "acq" }));
    ws.handleStimulus(GatherDepSuccessEvent({ worker: W2, totalNbytes: 1, data: own([["constructor", 3]]), stimulusId: "got" }));
    expect(ws.tasks.get("constructor")?.state).toBe("memory");
    const gathered = ws.stimulusLog[2] as GatherDepSuccessEvent;
    expect(Object.keys(gathered.data)).toEqual(["constructor"]);
  });

  it("the log's {key: recommended state} map keeps a prototype-named key", () => {
    const ws = worker();
    ws.handleStimulus(ComputeTaskEvent({ key: "x", whoHas: own([["__proto__", [W2]]]), stimulusId: "s" }));
    const entry = ws.story("x").find((e) => e[0] === "x" && e[1] === "released" && e[2] === "waiting");
    expect(entry).toBeDefined();
    const recs = entry![4] as Record<string, string>;
    expect(Object.keys(recs)).toEqual(["__proto__"]);
    expect(Object.getOwnPropertyDescriptor(recs, "__proto__")?.value).toBe("fetch");
  });

  it("a resource the worker lacks is never satisfied, whatever its name", () => {
    for (const name of PROTO_KEYS) {
      const ws = worker({ resources: { R: 1 } });
      const out = ws.handleStimulus(
        ComputeTaskEvent({ key: "x", resourceRestrictions: own([[name, 1]]), stimulusId: "s" }),
      );
      expect(out).toEqual([]);
      expect(ws.tasks.get("x")?.state).toBe("constrained");
      expect(Object.keys(ws.availableResources)).toEqual(["R"]);
    }
  });

  it("a worker resource named like a prototype property is counted as a resource", () => {
    const ws = worker({ resources: own([["__proto__", 2], ["constructor", 1]]) });
    expect(Object.keys(ws.totalResources)).toEqual(["__proto__", "constructor"]);
    const out = ws.handleStimulus(
      ComputeTaskEvent({ key: "x", resourceRestrictions: own([["__proto__", 2]]), stimulusId: "s" }),
    );
    expect(out).toEqual([Execute({ key: "x", stimulusId: "s" })]);
    expect(Object.getOwnPropertyDescriptor(ws.availableResources, "__proto__")?.value).toBe(0);
    ws.validateState();
    // validateState sums the restrictions of running tasks per resource name: a task whose
    // restrictions do not name `constructor` holds none of it (not Object.prototype's).
    (ws.availableResources as Record<string, number>)["constructor"] = 5;
    expect(() => ws.validateState()).toThrow(/resource constructor: available 5 \+ in use 0 != total 1/);
    (ws.availableResources as Record<string, number>)["constructor"] = 1;
  });

  it("task metadata takes any name, and TaskFinishedMsg carries it", () => {
    const ws = worker();
    ws.handleStimulus(ComputeTaskEvent({ key: "x", stimulusId: "s" }));
    const ts = ws.tasks.get("x")!;
    ts.metadata["__proto__"] = "m";
    const [msg] = ws.handleStimulus(ExecuteSuccessEvent({ key: "x", stimulusId: "done" }));
    expect(Object.keys((msg as TaskFinishedMsg).metadata)).toEqual(["__proto__"]);
  });

  it("the factories' empty mappings answer undefined for prototype-named keys and still equal {}", () => {
    const ev = ComputeTaskEvent({ key: "x", stimulusId: "s" });
    for (const k of PROTO_KEYS) {
      expect((ev.whoHas as Record<string, unknown>)[k]).toBeUndefined();
      expect((ev.resourceRestrictions as Record<string, unknown>)[k]).toBeUndefined();
      expect((ev.annotations as Record<string, unknown>)[k]).toBeUndefined();
    }
    expect(ev.whoHas).toEqual({});
    expect(TaskFinishedMsg({ key: "x", stimulusId: "s" }).metadata).toEqual({});
  });
});
