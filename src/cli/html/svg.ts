import { escapeHtml } from "./escape.js";

/** Coordinates rounded to 0.1 px: smaller files, and the same text for the same report. */
export function px(value: number): string {
  const rounded = Math.round(value * 10) / 10;
  return Object.is(rounded, -0) ? "0" : String(rounded);
}

export type AttributeValue = string | number | undefined;

/** An element with escaped attributes; `inner` is trusted markup (built by these helpers). */
export function element(tag: string, attributes: Readonly<Record<string, AttributeValue>>, inner?: string): string {
  const rendered = Object.entries(attributes)
    .filter((entry): entry is [string, string | number] => entry[1] !== undefined)
    .map(([name, value]) => ` ${name}="${typeof value === "number" ? px(value) : escapeHtml(value)}"`)
    .join("");
  return inner === undefined ? `<${tag}${rendered}/>` : `<${tag}${rendered}>${inner}</${tag}>`;
}

export function text(x: number, y: number, content: string, attributes: Readonly<Record<string, AttributeValue>> = {}): string {
  return element("text", { x, y, ...attributes }, escapeHtml(content));
}

/**
 * Up to about `target` round tick values from 0 to at least `max` (steps of 1, 2 or 5 × 10^k).
 * Returns [0] when max is not positive.
 */
export function niceTicks(max: number, target = 5): number[] {
  if (!(max > 0) || !Number.isFinite(max)) return [0];
  const rough = max / target;
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 5, 10].map((m) => m * power).find((candidate) => candidate >= rough) ?? 10 * power;
  const ticks: number[] = [];
  for (let i = 0; ; i += 1) {
    const tick = i * step;
    ticks.push(Number(tick.toPrecision(12)));
    if (tick >= max) break;
  }
  return ticks;
}

/** Round ticks within [0, max], for axes that end at the data (time) rather than at a round value. */
export function ticksWithin(max: number, target = 5): number[] {
  return niceTicks(max, target).filter((tick) => tick <= max * (1 + 1e-9));
}

/** Ticks for byte values in the binary unit that fits the maximum, so labels read `0, 20 MiB, 40 MiB`. */
export function byteTicks(max: number, target = 5): number[] {
  let unit = 1;
  while (max / unit >= 1024 && unit < 2 ** 50) unit *= 1024;
  return niceTicks(max / unit, target).map((tick) => tick * unit);
}

export interface LinearScale {
  (value: number): number;
  domainMax: number;
}

/** Maps [0, domainMax] onto [start, start + length]. */
export function linearScale(domainMax: number, start: number, length: number): LinearScale {
  const safeMax = domainMax > 0 ? domainMax : 1;
  const scale = ((value: number) => start + (value / safeMax) * length) as LinearScale;
  scale.domainMax = safeMax;
  return scale;
}

/** A horizontal axis at `y` with grid lines up to `gridTop`, tick labels formatted by `format`. */
export function xAxis(ticks: readonly number[], scale: LinearScale, y: number, gridTop: number, format: (value: number) => string): string {
  return ticks
    .map((tick) => {
      const x = scale(tick);
      return (
        element("line", { class: "grid", x1: x, x2: x, y1: gridTop, y2: y }) +
        text(x, y + 14, format(tick), { class: "tick", "text-anchor": "middle" })
      );
    })
    .join("");
}
