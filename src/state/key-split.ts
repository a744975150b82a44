// dask's `key_split`: the task prefix (name without numeric/hex suffixes) of a key.
// Tuple keys arrive stringified, e.g. "('z-123', 0)", and the leading quote/paren
// stripping of the first word gives "z", as dask's key_split(("z-123", 0)) does.

const LETTERS = /^\p{L}+$/u;
const HEX32 = /^[a-f0-9]{32}/;
const STRIP_CHARS = "_'()\"";

// Python's str.strip(chars)
function strip(text: string, chars: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && chars.includes(text[start] as string)) start++;
  while (end > start && chars.includes(text[end - 1] as string)) end--;
  return text.slice(start, end);
}

// Python's str.isalpha() over key[start, end), with an ASCII fast path
function isAlphaRange(key: string, start: number, end: number): boolean {
  if (end <= start) return false;
  for (let i = start; i < end; i++) {
    const c = key.charCodeAt(i);
    if ((c >= 65 && c <= 90) || (c >= 97 && c <= 122)) continue;
    if (c < 128) return false;
    return LETTERS.test(key.slice(start, end));
  }
  return true;
}

// dask: `hex_pattern.match(word)` with hex_pattern = "[a-f]+", i.e. starts with a-f
function startsWithHexLetter(key: string, start: number): boolean {
  const c = key.charCodeAt(start);
  return c >= 97 && c <= 102;
}

// Scans the "-"-separated words in place instead of splitting (keys are split once per
// task; this avoids an array and a string per word).
function computeKeySplit(key: string): string {
  const n = key.length;
  let firstEnd = key.indexOf("-");
  if (firstEnd < 0) firstEnd = n;
  if (firstEnd === 0) return "Other"; // words[0][0] raises IndexError in dask
  const firstIsAlpha = isAlphaRange(key, 0, 1);
  let end = firstEnd;
  while (end < n) {
    const wordStart = end + 1;
    let wordEnd = key.indexOf("-", wordStart);
    if (wordEnd < 0) wordEnd = n;
    if (!isAlphaRange(key, wordStart, wordEnd)) break;
    if (wordEnd - wordStart === 8 && startsWithHexLetter(key, wordStart)) break;
    end = wordEnd;
  }
  let result: string;
  if (firstIsAlpha) {
    result = end === n ? key : key.slice(0, end);
  } else {
    const first = key.slice(0, firstEnd);
    const comma = first.indexOf(",");
    result = strip(comma < 0 ? first : first.slice(0, comma), STRIP_CHARS) + key.slice(firstEnd, end);
  }
  if (result.length === 32 && HEX32.test(result)) return "data";
  if (result.length === 0) return "Other"; // result[0] raises IndexError in dask
  if (result[0] === "<") {
    const inner = strip(result, "<>").split(/\s+/).filter((w) => w.length > 0)[0];
    if (inner === undefined) return "Other";
    const parts = inner.split(".");
    result = parts[parts.length - 1] as string;
  }
  return result;
}

/** Task prefix of `key`, exactly as dask's `key_split`; `null`/`undefined` give "Other". */
export function keySplit(key: string | null | undefined): string {
  if (typeof key !== "string") return "Other";
  return computeKeySplit(key);
}
