// The SpillBuffer's default weight of a value: spanwork's one sizeof estimator (src/util).
export { sizeof, safeSizeof, SIZEOF_FALLBACK } from "../util/sizeof.js";
