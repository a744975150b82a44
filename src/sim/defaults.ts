// The defaults of a run that a caller may need without loading the simulator itself (the CLI
// compiles a spec file with the run's seed before the worker stack is imported).

export const DEFAULT_SEED = 1;
export const DEFAULT_WORKERS = 4;
export const DEFAULT_THREADS = 2;
