// The seams of the state machine are checked by the compiler (issue 13 item 5): a new event
// kind with no factory/EVENT_KINDS entry, no handler or no stimulus-log case, and a
// transition function filed under a (start, finish) pair it does not handle, fail to
// type-check. The probes edit source files in memory and run the real type checker over
// src/state once; the errors must be exactly the probes' (so nothing else is broken, and
// the unedited sources are checked by `npm test`'s tsc --noEmit).
import { relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { EVENT_KINDS, WorkerState } from "../../src/state/index.js";

const ROOT = resolve(import.meta.dirname, "../..");
const STATE = resolve(ROOT, "src/state");

function compilerOptions(): ts.CompilerOptions {
  const config = ts.readConfigFile(resolve(ROOT, "tsconfig.json"), ts.sys.readFile);
  return ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT).options;
}

const options = compilerOptions();

interface TypeError {
  /** Path under src/state. */
  readonly file: string;
  /** The source line the error points at. */
  readonly line: string;
  readonly message: string;
}

/** Type errors of src/state with `edits` applied (file → [search, replacement] pairs). */
function typeErrors(edits: Record<string, [string, string][]>): TypeError[] {
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  host.readFile = (fileName) => {
    const text = readFile(fileName);
    const rel = relative(STATE, fileName);
    const changes = edits[rel];
    if (text === undefined || changes === undefined) return text;
    let edited = text;
    for (const [search, replacement] of changes) {
      if (!edited.includes(search)) throw new Error(`probe: ${rel} does not contain ${JSON.stringify(search)}`);
      edited = edited.replace(search, replacement);
    }
    return edited;
  };
  const program = ts.createProgram([resolve(STATE, "index.ts")], options, host);
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const file = d.file === undefined ? "?" : relative(STATE, d.file.fileName);
    let line = "";
    if (d.file !== undefined && d.start !== undefined) {
      const { line: n } = d.file.getLineAndCharacterOfPosition(d.start);
      line = d.file.text.split("\n")[n]?.trim() ?? "";
    }
    return { file, line, message: ts.flattenDiagnosticMessageText(d.messageText, " ") };
  });
}

// The probes, all in one program (type-checking src/state takes seconds): a new member of
// the event union, and two misfiled transition functions appended to the table's module.
const PROBES: Record<string, [string, string][]> = {
  "events.ts": [
    [
      "export type StateMachineEvent =\n",
      'export interface ProbeEvent {\n  readonly kind: "ProbeEvent";\n  readonly stimulusId: string;\n}\nexport type StateMachineEvent =\n  | ProbeEvent\n',
    ],
  ],
  "transitions/table.ts": [
    [
      "/** Number of (start, finish) pairs in the table. */",
      [
        "// released → fetch's function filed under flight → fetch (the wrong start).",
        "export const PROBE_WRONG_START: TransitionTable = { flight: { fetch: releasedFetch } };",
        "// executing → memory's function (it reads rec.value) filed under executing → released.",
        "export const PROBE_WRONG_FINISH: TransitionTable = { executing: { released: executingMemory } };",
        "/** Number of (start, finish) pairs in the table. */",
      ].join("\n"),
    ],
  ],
};

describe("type checks of the state machine's seams", () => {
  const errors = (): TypeError[] => (probeErrors ??= typeErrors(PROBES));
  let probeErrors: TypeError[] | undefined;

  it("a new event kind fails to compile until it has a factory entry, a handler and a log case", () => {
    const eventErrors = errors().filter((e) => e.file !== "transitions/table.ts");
    // EVENT_FACTORIES (which EVENT_KINDS is read from) lacks it; handleEvent's switch and
    // toLoggable's switch reach their `never` default with it.
    expect(eventErrors.map((e) => `${e.file}: ${e.line}`).sort()).toEqual([
      "events.ts: const EVENT_FACTORIES: { readonly [K in StateMachineEventKind]: (init: never) => Extract<StateMachineEvent, { kind: K }> } = {",
      "handlers/index.ts: return unknownEventKind(ev);",
      "loggable.ts: return unknownEventKind(event);",
    ]);
    expect(eventErrors.find((e) => e.file === "events.ts")?.message).toMatch(/ProbeEvent/);
  }, 60_000);

  it("a transition function under a pair it does not handle fails to compile", () => {
    const tableErrors = errors().filter((e) => e.file === "transitions/table.ts");
    expect(tableErrors.map((e) => e.line)).toEqual([
      "export const PROBE_WRONG_START: TransitionTable = { flight: { fetch: releasedFetch } };",
      "export const PROBE_WRONG_FINISH: TransitionTable = { executing: { released: executingMemory } };",
    ]);
    expect(tableErrors[0]?.message).toMatch(/"flight" is not assignable to type "released"|'"flight"' is not assignable to type '"released"'/);
    expect(tableErrors[1]?.message).toMatch(/'"released"' is not assignable to type '"memory"'/);
  }, 60_000);
});

describe("event kinds at run time", () => {
  it("EVENT_KINDS lists each kind of the union once", () => {
    expect(EVENT_KINDS).toHaveLength(21);
    expect(new Set(EVENT_KINDS).size).toBe(21);
    expect(Object.isFrozen(EVENT_KINDS)).toBe(true);
  });

  it("an unknown kind from untyped code is rejected by name, and not logged", () => {
    const ws = new WorkerState({ validate: true });
    expect(() => ws.handleStimulus({ kind: "ProbeEvent", stimulusId: "p" } as never)).toThrow(
      'unknown event kind "ProbeEvent" (stimulus "p")',
    );
    expect(ws.stimulusLog).toEqual([]);
  });
});

