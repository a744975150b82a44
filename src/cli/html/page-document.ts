import { escapeHtml } from "./escape.js";
import { REPORT_CSS } from "./page-assets.js";
import { REPORT_SCRIPT } from "./page-script.js";

/**
 * A whole self-contained HTML document around `body` (trusted markup, one entry per line):
 * inline CSS and the tooltip script, and a Content-Security-Policy that forbids every fetch,
 * so the page works offline and cannot leak anything when opened.
 */
export function selfContainedPage(title: string, body: readonly string[]): string {
  return [
    "<!DOCTYPE html>",
    '<html lang="en">',
    "<head>",
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">`,
    `<title>${escapeHtml(title)}</title>`,
    `<style>${REPORT_CSS}</style>`,
    "</head>",
    "<body>",
    "<main>",
    `<h1>${escapeHtml(title)}</h1>`,
    ...body,
    "</main>",
    '<div id="tip" hidden></div>',
    `<script>${REPORT_SCRIPT}</script>`,
    "</body>",
    "</html>",
    "",
  ].join("\n");
}
