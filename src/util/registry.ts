// Extension points (network models, workloads, scheduling policies, …) are registries: one
// object literal mapping a name to its entry, one line per entry, each entry defined in its
// own file. Everything that lists or validates the names — the zod enum of the spec, the CLI
// choices, the option types, `spanwork list` — derives from the registry, so adding an entry
// is one new file plus one line here and the compiler catches what is missing.
//
// This folder (src/util) is a leaf: it imports nothing from the rest of spanwork.

/** What every registry entry carries: a one-line description for `spanwork list` and help. */
export interface RegistryEntry {
  readonly description: string;
}

export type Registry<E extends RegistryEntry = RegistryEntry> = Readonly<Record<string, E>>;

/** The names of a registry in declaration order, as a non-empty tuple (what `z.enum` takes). */
export function registryNames<R extends Registry>(registry: R): [keyof R & string, ...Array<keyof R & string>] {
  const names = Object.keys(registry) as Array<keyof R & string>;
  if (names.length === 0) throw new Error("a registry needs at least one entry");
  return names as [keyof R & string, ...Array<keyof R & string>];
}

/** True when `name` is an entry of the registry (never for inherited names such as `__proto__` or `constructor`). */
export function isRegistryName<R extends Registry>(registry: R, name: string): name is keyof R & string {
  return Object.hasOwn(registry, name);
}

/** The entry named `name`, or undefined. */
export function registryEntry<R extends Registry>(registry: R, name: string): R[keyof R] | undefined {
  return isRegistryName(registry, name) ? (registry[name] as R[keyof R]) : undefined;
}
