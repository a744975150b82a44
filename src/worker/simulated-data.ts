// The value a simulated task produces: no payload, only a size. A plain frozen object (not
// a class instance), so it survives structured cloning and the v8 serializer of a spill store.
import { freeze } from "immer";
import type { Key } from "../state/index.js";
import { sizeof as spillSizeof } from "../spill/index.js";

export interface SimulatedData {
  readonly simulated: true;
  readonly key: Key;
  readonly nbytes: number;
}

export function SimulatedData(key: Key, nbytes: number): SimulatedData {
  return freeze({ simulated: true, key, nbytes });
}

export function isSimulatedData(value: unknown): value is SimulatedData {
  return (
    typeof value === "object" &&
    value !== null &&
    (value as { simulated?: unknown }).simulated === true &&
    typeof (value as { nbytes?: unknown }).nbytes === "number"
  );
}

/** The Worker's default `sizeof`: a SimulatedData weighs its modelled `nbytes`, anything else the spill `sizeof`. */
export function workerSizeof(value: unknown): number {
  return isSimulatedData(value) ? value.nbytes : spillSizeof(value);
}
