import { visibleWidth } from "./color.js";

export type Alignment = "left" | "right";

export interface Column {
  header: string;
  align?: Alignment;
}

/**
 * Renders rows as aligned text columns under a header and a rule line. Cells may contain ANSI
 * styling; widths are measured on the visible text. Returns the lines without trailing newline.
 */
export function renderTable(columns: readonly Column[], rows: readonly (readonly string[])[], options: { indent?: string; gap?: string } = {}): string[] {
  const indent = options.indent ?? "";
  const gap = options.gap ?? "  ";
  const widths = columns.map((column, index) =>
    Math.max(visibleWidth(column.header), ...rows.map((row) => visibleWidth(row[index] ?? ""))),
  );
  const line = (cells: readonly string[]): string =>
    (indent + columns.map((column, index) => pad(cells[index] ?? "", widths[index]!, column.align ?? "left")).join(gap)).trimEnd();
  const rule = indent + widths.map((width) => "─".repeat(width)).join(gap);
  return [line(columns.map((column) => column.header)), rule, ...rows.map(line)];
}

function pad(text: string, width: number, align: Alignment): string {
  const fill = " ".repeat(Math.max(0, width - visibleWidth(text)));
  return align === "right" ? fill + text : text + fill;
}

const EIGHTHS = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"] as const;

/** A horizontal bar of `width` columns filled to `share` (0..1), with eighth-column precision. */
export function bar(share: number, width: number): string {
  const clamped = Number.isFinite(share) ? Math.min(1, Math.max(0, share)) : 0;
  // A non-zero share keeps a sliver so that "small" and "nothing" look different.
  const eighths = clamped > 0 ? Math.max(1, Math.round(clamped * width * 8)) : 0;
  const full = Math.floor(eighths / 8);
  const partial = EIGHTHS[eighths % 8]!;
  return "█".repeat(full) + partial;
}
