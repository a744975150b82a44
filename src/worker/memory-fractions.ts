// dask's distributed.worker.memory fractions of the memory limit, in one place: the Worker's
// SpillBuffer target and the simulator's memory monitor read the same numbers.

export const MEMORY_FRACTIONS = {
  /** The SpillBuffer spills least recently used values beyond this (distributed.worker.memory.target). */
  target: 0.6,
  /** The memory monitor spills, down to the target, once managed memory passes this (…memory.spill). */
  spill: 0.7,
  /** The worker is paused (no new work) above this (…memory.pause). */
  pause: 0.8,
  /** The nanny would restart the worker above this (…memory.terminate); nothing in spanwork does. */
  terminate: 0.95,
} as const;
