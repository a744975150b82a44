// The value a simulated task produces: no payload, only a size. A plain frozen object (not
// a class instance), so it survives structured cloning and the v8 serializer of a spill store.
import { freeze } from "immer";
import type { Key } from "../state/index.js";
import { isSizedStandIn, sizeof, type SizedStandIn } from "../util/sizeof.js";

export interface SimulatedData extends SizedStandIn {
  readonly key: Key;
}

export function SimulatedData(key: Key, nbytes: number): SimulatedData {
  return freeze({ simulated: true, key, nbytes });
}

export function isSimulatedData(value: unknown): value is SimulatedData {
  return isSizedStandIn(value);
}

/** The Worker's default `sizeof` (spanwork's one estimator), under which a SimulatedData weighs its modelled `nbytes`. */
export const workerSizeof: (value: unknown) => number = sizeof;
