// Reading the HTML report's markup in Node tests.
import { expect } from "vitest";

/** The markup of one chart's <figure>. */
export function chartMarkup(html: string, id: string): string {
  const start = html.indexOf(`<figure class="chart" id="${id}"`);
  expect(start, `chart ${id} is missing`).toBeGreaterThanOrEqual(0);
  return html.slice(start, html.indexOf("</figure>", start));
}

export function count(text: string, pattern: RegExp): number {
  return text.match(pattern)?.length ?? 0;
}
