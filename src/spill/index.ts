// Public names of the spill subsystem (CONTRACT §4).
export { SpillBuffer, type SpillBufferOptions } from "./spill-buffer.js";
export type { FastTierView } from "./fast-tier.js";
export type { SlowTierView, SpilledSize } from "./slow-tier.js";
export type { SpillStore, ModelledDuration, ModelledRead, ModelledFramesRead } from "./store.js";
export { FileStore, spillFileName, type FileStoreLayout, type FileStoreOptions, type FileStoreFs } from "./file-store.js";
export { v8Serializer, compressionCodec, type Serializer, type SpillCompression, type Codec } from "./serializer.js";
export { sizeof, safeSizeof, SIZEOF_FALLBACK } from "./sizeof.js";
export { SPILL_ACTIVITIES, type SpillActivity, type SpillUnit } from "./metrics.js";
export { consoleLogger, type SpillLogger } from "./logging.js";
export { SpillKeyError, SpillSerializeError, SpillReadError, MaxSpillExceeded } from "./errors.js";
