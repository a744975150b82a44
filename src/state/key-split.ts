// dask's `key_split`: the task prefix (name without numeric/hex suffixes) of a key.
// Tuple keys arrive stringified, e.g. "('z-123', 0)", and the leading quote/paren
// stripping of the first word gives "z", as dask's key_split(("z-123", 0)) does.

const LETTERS = /^\p{L}+$/u;
const HEX32 = /^[a-f0-9]{32}/;
const LEADING_HEX_LETTER = /^[a-f]/;
const STRIP_CHARS = "_'()\"";

// Python's str.strip(chars)
function strip(text: string, chars: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && chars.includes(text[start] as string)) start++;
  while (end > start && chars.includes(text[end - 1] as string)) end--;
  return text.slice(start, end);
}

// Python's str.isalpha(), with an ASCII fast path
function isAlpha(word: string): boolean {
  const n = word.length;
  if (n === 0) return false;
  for (let i = 0; i < n; i++) {
    const c = word.charCodeAt(i);
    if ((c >= 65 && c <= 90) || (c >= 97 && c <= 122)) continue;
    if (c < 128) return false;
    return LETTERS.test(word);
  }
  return true;
}

function computeKeySplit(key: string): string {
  const words = key.split("-");
  const first = words[0] as string;
  if (first.length === 0) return "Other"; // words[0][0] raises IndexError in dask
  let result: string;
  if (!isAlpha(first[0] as string)) {
    result = strip(first.split(",")[0] as string, STRIP_CHARS);
  } else {
    result = first;
  }
  for (let i = 1; i < words.length; i++) {
    const word = words[i] as string;
    // dask: word.isalpha() and not (len(word) == 8 and hex_pattern.match(word))
    if (isAlpha(word) && !(word.length === 8 && LEADING_HEX_LETTER.test(word))) {
      result += "-" + word;
    } else {
      break;
    }
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
