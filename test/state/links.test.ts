// A task's relations (links.ts): stored as nothing, one member, a small array or a Set, and
// read through TaskState's getters as a live Set.
import { describe, expect, it } from "vitest";
import { ComputeTaskEvent, ExecuteSuccessEvent, FreeKeysEvent, GatherDepSuccessEvent, RefreshWhoHasEvent } from "../../src/state/index.js";
import {
  clearedLinks,
  everyLink,
  forEachLink,
  linkCount,
  linkHas,
  linksToArray,
  observedLinks,
  replacedLinks,
  withLink,
  withoutLink,
  type Links,
} from "../../src/state/links.js";
import { W2, W3, worker } from "./helpers.js";

function build(items: string[]): Links<string> {
  let links: Links<string> = null;
  for (const item of items) links = withLink(links, item);
  return links;
}

describe("links", () => {
  it("behave as an insertion-ordered set in every form (0, 1, a few, many members)", () => {
    for (const n of [0, 1, 2, 8, 9, 30]) {
      const items = Array.from({ length: n }, (_, i) => `w${i}`);
      let links = build([...items, ...items]); // duplicates are ignored
      expect(linkCount(links)).toBe(n);
      expect(linksToArray(links)).toEqual(items);
      for (const item of items) expect(linkHas(links, item)).toBe(true);
      expect(linkHas(links, "nope")).toBe(false);
      const seen: string[] = [];
      forEachLink(links, (item, into: string[]) => void into.push(item), seen, null);
      expect(seen).toEqual(items);
      expect(everyLink(links, (item) => item.startsWith("w"), null)).toBe(true);
      expect(everyLink(links, (item) => item !== "w0", null)).toBe(n === 0);
      // Delete from the middle, then everything.
      if (n > 2) {
        links = withoutLink(links, "w1");
        expect(linksToArray(links)).toEqual(items.filter((i) => i !== "w1"));
      }
      for (const item of items) links = withoutLink(links, item);
      expect(linkCount(links)).toBe(0);
      expect(linksToArray(links)).toEqual([]);
    }
  });

  it("a Set handed out stays the storage: emptied, refilled and cleared in place", () => {
    let links = build(["a", "b"]);
    const set = observedLinks(links);
    links = set as unknown as Links<string>;
    links = withLink(links, "c");
    expect([...set]).toEqual(["a", "b", "c"]);
    links = withoutLink(withoutLink(withoutLink(links, "a"), "b"), "c");
    expect(observedLinks(links)).toBe(set);
    expect(set.size).toBe(0);
    links = replacedLinks(links, build(["x", "y"]));
    expect([...set]).toEqual(["x", "y"]);
    links = clearedLinks(links);
    expect(observedLinks(links)).toBe(set);
    expect(set.size).toBe(0);
  });
});

describe("TaskState relation getters are live views", () => {
  it("a held waitingForData, whoHas and dependents see later stimuli", () => {
    const ws = worker();
    ws.handleStimulus(ComputeTaskEvent({ key: "y", whoHas: { x: [W2] }, nbytes: { x: 10 }, stimulusId: "s1" }));
    const y = ws.tasks.get("y")!;
    const x = ws.tasks.get("x")!;
    const waitingForData = y.waitingForData;
    const whoHas = x.whoHas;
    const dependents = x.dependents;
    expect([...waitingForData]).toEqual([x]);
    expect([...whoHas]).toEqual([W2]);
    ws.handleStimulus(RefreshWhoHasEvent({ whoHas: { x: [W3] }, stimulusId: "s2" }));
    expect([...whoHas]).toEqual([W3]);
    expect(x.whoHas).toBe(whoHas);
    ws.handleStimulus(GatherDepSuccessEvent({ worker: W2, totalNbytes: 10, data: { x: 1 }, stimulusId: "s3" }));
    expect(waitingForData.size).toBe(0);
    expect(y.waitingForData).toBe(waitingForData);
    ws.handleStimulus(ExecuteSuccessEvent({ key: "y", runId: 0, stimulusId: "s4" }));
    ws.handleStimulus(FreeKeysEvent({ keys: ["y"], stimulusId: "s5" }));
    expect(dependents.size).toBe(0);
    expect(x.dependents).toBe(dependents);
  });
});
