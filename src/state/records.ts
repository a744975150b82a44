// Records keyed by data (task keys, resource names, metadata names). A key is any string,
// `__proto__`, `constructor` and `toString` included (CONTRACT §1 mappings are plain
// objects; a null-prototype object is one, and `toEqual` compares it like `{}`): a record
// built here has no prototype, so writing `__proto__` makes an own key and reading an
// absent `constructor` gives undefined.

/** A fresh, empty record with no prototype. */
export function newRecord<V>(): Record<string, V> {
  return Object.create(null) as Record<string, V>;
}

/** The shared frozen empty record (the factories' default for every mapping field). */
export const EMPTY_RECORD: Readonly<Record<string, never>> = Object.freeze(newRecord<never>());

/** A copy of `record`'s own enumerable entries, with no prototype. */
export function copyRecord<V>(record: Readonly<Record<string, V>>): Record<string, V> {
  return Object.assign(newRecord<V>(), record);
}

/** `record[key]` when it is the record's own property (a caller's `{}` inherits `constructor`). */
export function ownValue<V>(record: Readonly<Record<string, V>>, key: string): V | undefined {
  return Object.prototype.hasOwnProperty.call(record, key) ? record[key] : undefined;
}
