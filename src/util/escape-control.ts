// Text that comes from users (task keys, spec names, file contents) ends up in one-line
// messages on a terminal. Control characters in it (NUL, ESC starting a terminal escape
// sequence, a newline breaking "one line") are shown as \u escapes instead of being sent raw.

const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;

/** `text` with every C0/C1 control character (and the Unicode line separators) as `\uXXXX`. */
export function escapeControlCharacters(text: string): string {
  return text.replace(CONTROL, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
