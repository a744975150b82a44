// fast-check is an optional peer dependency of `spanwork/testing`: the fixtures and matchers
// work without it, and the property tools (arbitraryStimuli, assertStimuli, the Worker
// harness) ask for it by name when it is missing. It is loaded once, here, with a
// top-level dynamic import, so that the kit shares the user's ESM copy of fast-check (an
// arbitrary built by one copy is not accepted by another) and the main `spanwork` entry,
// which never imports this folder, does not need it at all.
import type * as FastCheck from "fast-check";

export type FastCheckModule = typeof FastCheck;

let loaded: FastCheckModule | null = null;
let loadError: unknown = null;
try {
  loaded = await import("fast-check");
} catch (error) {
  loadError = error;
}

/** The fast-check module, or an Error naming the peer dependency and how to install it. */
export function fastCheck(feature: string): FastCheckModule {
  if (loaded !== null) return loaded;
  throw new Error(
    `spanwork/testing: ${feature} needs the optional peer dependency fast-check ` +
      `(npm install --save-dev fast-check): ${loadError instanceof Error ? loadError.message : String(loadError)}`,
    { cause: loadError },
  );
}
