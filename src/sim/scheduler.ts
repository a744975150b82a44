// The simulator's dask-style scheduler: `Scheduler` is the core of src/sim/scheduler/ (task
// lifecycle, messages, freeing, recompute, steals) driven by a placement policy — dask
// 2022.12.1's by default. See docs/sim.md, "Scheduling".
export { SchedulerCore as Scheduler, TaskStatus, TASK_STATUS_NAMES, type SchedulerHost, type SchedulerOptions } from "./scheduler/index.js";
