/** Keys of a SpillBuffer are strings, as everywhere in spanwork (CONTRACT §1). */
export type Key = string;

/** A key quoted like Python's repr (`'k'`), so messages read like dask's. */
export function reprKey(key: Key): string {
  const escaped = JSON.stringify(key).slice(1, -1).replace(/\\"/g, '"').replace(/'/g, "\\'");
  return `'${escaped}'`;
}
