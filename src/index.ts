// Public entry point of spanwork. The names exported here are fixed by the contract.
export * from "./state/index.js";
export * from "./spans/index.js";
export * from "./spill/index.js";
export * from "./worker/index.js";
export * from "./sim/index.js";
export * from "./lab/index.js";
