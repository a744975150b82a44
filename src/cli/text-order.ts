/** UTF-16 code-unit order (JS `<`), independent of locale, so that output is the same everywhere; src/util/python-str.ts orders by code points. */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
