// Default clocks. Wall time is monotonic (performance.now), never the calendar clock, so
// durations cannot go negative when the system time is adjusted.
import type { Clock, CpuClock } from "./types.js";

/** Monotonic real time in seconds. */
export const monotonicClock: Clock = {
  now: () => performance.now() / 1000,
};

type CpuUsageReader = () => { user: number; system: number };

// Node ≥ 23.9 has a per-thread reading; Node 20 only has the process-wide one, which also
// counts other threads (GC helpers, the libuv pool). See docs/spans.md, "CPU split".
const threadCpuUsage = (process as unknown as { threadCpuUsage?: CpuUsageReader }).threadCpuUsage;
const readCpuUsage: CpuUsageReader = threadCpuUsage !== undefined ? threadCpuUsage.bind(process) : () => process.cpuUsage();

/** CPU seconds (user + system) of this thread when Node can tell, else of the process. */
export const processCpuClock: CpuClock = {
  now: () => {
    const usage = readCpuUsage();
    return (usage.user + usage.system) / 1e6;
  },
};

/** Whether `processCpuClock` measures only the calling thread. */
export const cpuClockIsPerThread = threadCpuUsage !== undefined;
