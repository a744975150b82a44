// Every piece of text in the HTML report goes through these: task keys and prefixes come from
// user specs and may contain anything, including markup.

const ESCAPES: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
  "\n": "&#10;",
};

/** Escapes text for element content and for double- or single-quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"'\n]/g, (char) => ESCAPES[char]!);
}

/** Shortens text to `max` code points with an ellipsis, for labels; the full text goes in the tooltip. */
export function truncate(text: string, max: number): string {
  const chars = Array.from(text);
  return chars.length <= max ? text : `${chars.slice(0, Math.max(1, max - 1)).join("")}…`;
}
