// Python's `str <` compares code points; JS `<` compares UTF-16 code units, which disagree
// only where a surrogate (an astral character) meets a unit in U+E000…U+FFFF.

/** Negative, zero or positive as Python orders the two strings. */
export function pythonStrCompare(a: string, b: string): number {
  const len = Math.min(a.length, b.length);
  for (let k = 0; k < len; k++) {
    const x = a.charCodeAt(k);
    const y = b.charCodeAt(k);
    if (x !== y) return codePointRank(x) - codePointRank(y);
  }
  return a.length - b.length;
}

/** Moves surrogates above U+FFFF's units so the first differing unit orders as code points do. */
function codePointRank(unit: number): number {
  if (unit >= 0xe000) return unit - 0x800;
  if (unit >= 0xd800) return unit + 0x2000;
  return unit;
}
