import type { SimReport } from "../../sim/report.js";

// Events drawn over the time charts (task stream, memory, bandwidth): worker deaths and pauses,
// from `report.faults`, and work stealing, from `report.steals` when the scheduler recorded it.
// One function reads them all, so every chart marks the same moments.

export interface DeathMarker {
  worker: string;
  time: number;
  detail: string;
}

/** A worker paused from `start` to `end`; `open` when the run ended before it was unpaused. */
export interface PauseMarker {
  worker: string;
  start: number;
  end: number;
  open: boolean;
  detail: string;
}

export interface StealMarker {
  time: number;
  key: string;
  victim: string;
  thief: string;
  outcome: string;
}

export interface TimelineMarkers {
  deaths: DeathMarker[];
  pauses: PauseMarker[];
  steals: StealMarker[];
  /** Death, pause and unpause faults whose worker could not be told from their detail, and malformed steals. */
  unplaced: number;
}

/**
 * The optional `steals` field another part of the simulator adds to the report: read when
 * present, checked entry by entry (a report is data, possibly from an older or newer version).
 */
interface MaybeSteals {
  steals?: unknown;
}

/**
 * Deaths (`worker-death` faults), pause intervals (a `pause` fault up to the next `unpause` of
 * the same worker, or to the end of the run) and steals of a report, each with its worker(s) and
 * times, sorted by time. A fault names its worker by starting its detail with the address.
 */
export function timelineMarkers(report: SimReport): TimelineMarkers {
  const addresses = knownWorkers(report);
  const deaths: DeathMarker[] = [];
  const pauses: PauseMarker[] = [];
  const openPauses = new Map<string, { start: number; detail: string }>();
  let unplaced = 0;
  const end = runEnd(report);
  const faults = report.faults
    .map((fault, index) => ({ fault, index }))
    .filter(({ fault }) => Number.isFinite(fault.time))
    .sort((a, b) => a.fault.time - b.fault.time || a.index - b.index);
  for (const { fault } of faults) {
    if (fault.kind !== "worker-death" && fault.kind !== "pause" && fault.kind !== "unpause") continue;
    const worker = workerOf(fault.detail, addresses);
    if (worker === undefined) {
      unplaced += 1;
      continue;
    }
    if (fault.kind === "worker-death") {
      deaths.push({ worker, time: fault.time, detail: fault.detail });
      const open = openPauses.get(worker);
      if (open) {
        pauses.push({ worker, start: open.start, end: fault.time, open: false, detail: open.detail });
        openPauses.delete(worker);
      }
    } else if (fault.kind === "pause") {
      if (!openPauses.has(worker)) openPauses.set(worker, { start: fault.time, detail: fault.detail });
    } else {
      const open = openPauses.get(worker);
      if (open) {
        pauses.push({ worker, start: open.start, end: fault.time, open: false, detail: open.detail });
        openPauses.delete(worker);
      }
    }
  }
  for (const [worker, open] of openPauses) pauses.push({ worker, start: open.start, end: Math.max(open.start, end), open: true, detail: open.detail });
  pauses.sort((a, b) => a.start - b.start || (a.worker < b.worker ? -1 : a.worker > b.worker ? 1 : 0));

  const steals: StealMarker[] = [];
  const recorded = (report as SimReport & MaybeSteals).steals;
  if (Array.isArray(recorded)) {
    for (const entry of recorded as unknown[]) {
      // A steal is drawn where the task went: one whose thief is not a worker of the report cannot be.
      const steal = asSteal(entry);
      if (steal === undefined || !addresses.includes(steal.thief)) unplaced += 1;
      else steals.push(steal);
    }
    steals.sort((a, b) => a.time - b.time);
  }
  return { deaths, pauses, steals, unplaced };
}

/** When the time charts end: the makespan, or the last task, sample or transfer if later. */
export function runEnd(report: SimReport): number {
  let end = Number.isFinite(report.makespan) ? report.makespan : 0;
  for (const record of report.taskRecords) if (record.end > end) end = record.end;
  for (const transfer of report.transfers) if (transfer.end > end) end = transfer.end;
  for (const sample of report.memory) if (sample.time > end) end = sample.time;
  return end;
}

function knownWorkers(report: SimReport): string[] {
  const addresses = new Set(report.perWorker.map((worker) => worker.address));
  for (const record of report.taskRecords) addresses.add(record.worker);
  // Longest first, so that `w1` never claims a detail that names `w10`.
  return [...addresses].sort((a, b) => b.length - a.length);
}

function workerOf(detail: string, addresses: readonly string[]): string | undefined {
  return addresses.find((address) => detail.startsWith(address) && (detail.length === address.length || /[\s:,]/.test(detail[address.length]!)));
}

function asSteal(entry: unknown): StealMarker | undefined {
  if (typeof entry !== "object" || entry === null) return undefined;
  const { time, key, victim, thief, outcome } = entry as Record<string, unknown>;
  if (typeof time !== "number" || !Number.isFinite(time) || typeof key !== "string" || typeof victim !== "string" || typeof thief !== "string") return undefined;
  return { time, key, victim, thief, outcome: typeof outcome === "string" ? outcome : "unknown" };
}
