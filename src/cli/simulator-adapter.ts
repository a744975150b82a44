// The real SimulatorApi: src/sim's simulate, built-in workloads and spec loading, and
// src/spans' Chrome trace export, with their errors turned into the command's error kinds.
// `list` and `validate` need only the workload and spec modules; the simulator proper (the
// worker stack) is imported when a run starts, which keeps those commands quick.
import { DEFAULT_SEED } from "../sim/defaults.js";
import { loadClusterProfile } from "../sim/profile-file.js";
import { GraphError } from "../sim/graph.js";
import type { SimResult } from "../sim/report.js";
import { loadWorkloadFile, SpecError, type WorkloadSpec } from "../sim/spec.js";
import { BUILT_IN_WORKLOADS, builtInWorkloads, workloadFromSpec, type Workload } from "../sim/workloads/index.js";
import type { ChromeTrace } from "../spans/index.js";
import { registryEntry } from "../util/registry.js";
import { simulationTrace } from "./chrome-trace.js";
import { CliUsageError, SpecProblemsError } from "./errors.js";
import { formatCount } from "./format/units.js";
import type { CliWorkload, SimulatorApi } from "./simulator-api.js";

export function realSimulator(): SimulatorApi {
  return {
    listWorkloads: () => Object.entries(builtInWorkloads).map(([name, workload]) => ({ name, description: workload.description })),

    builtInWorkload(name) {
      const builtIn = registryEntry(BUILT_IN_WORKLOADS, name);
      return builtIn === undefined ? undefined : { name, outline: builtIn.description, input: name };
    },

    loadWorkloadFile(path, displayPath, options = {}) {
      const shown = (issue: string): string => (issue.startsWith(`${path}: `) ? `${displayPath}: ${issue.slice(path.length + 2)}` : issue);
      let spec: WorkloadSpec;
      try {
        spec = loadWorkloadFile(path);
      } catch (error) {
        if (error instanceof SpecError) throw new SpecProblemsError(error.issues.map(shown));
        throw error;
      }
      // Compiled here, once, with the run's seed: key-level cycles show only when the graph is
      // built, and `validate` and `run` report them as bad input; simulate() then takes the
      // compiled workload as it is.
      let compiled: Workload;
      try {
        compiled = workloadFromSpec(spec, options.seed ?? DEFAULT_SEED);
      } catch (error) {
        if (error instanceof GraphError || error instanceof SpecError) throw new SpecProblemsError([`${displayPath}: ${error.message}`]);
        throw error;
      }
      return { name: spec.name ?? displayPath, outline: outline(spec), input: compiled, file: displayPath, spec } satisfies CliWorkload;
    },

    loadClusterProfile(path, displayPath) {
      try {
        // Problems name the file as the user typed it, and a base it extends by its `extends` path joined to that file's folder.
        return loadClusterProfile(path, displayPath);
      } catch (error) {
        if (error instanceof SpecError) throw new SpecProblemsError(error.issues);
        throw error;
      }
    },

    async simulate(workload, options) {
      const { simulate, SimulationError } = await import("../sim/simulate.js");
      try {
        return await simulate(workload.input, options);
      } catch (error) {
        // Problems found only at run time (a fault naming a worker the cluster lacks) name the file too.
        if (error instanceof SpecError) throw new SpecProblemsError(error.issues.map((issue) => (workload.file === undefined ? issue : `${workload.file}: ${issue}`)));
        if (error instanceof SimulationError || error instanceof GraphError) throw new CliUsageError(error.message);
        throw error;
      }
    },

    chromeTrace,
  };
}

/** The run's Chrome trace: tracks, memory counters and transfer flows (chrome-trace.ts). */
function chromeTrace(result: SimResult): ChromeTrace {
  return simulationTrace(result);
}

function outline(spec: WorkloadSpec): string {
  const tasks = spec.taskTable?.length ?? spec.tasks.reduce((sum, group) => sum + group.count, 0);
  const groups = spec.tasks.length;
  const faults = spec.faults.length;
  const shape = spec.taskTable === undefined ? `${groups} task ${groups === 1 ? "group" : "groups"}` : "a task table";
  return `${shape}, ${formatCount(tasks)} ${tasks === 1 ? "task" : "tasks"}${faults > 0 ? `, ${faults} ${faults === 1 ? "fault" : "faults"}` : ""}`;
}
