// The CSS inlined into every HTML report (the script is in page-script.ts). Kept small and
// dependency-free so the file opens anywhere, offline, with nothing fetched.

export const REPORT_CSS = `
:root { color-scheme: light; --ink: #1f2937; --muted: #6b7280; --line: #e5e7eb; --ok: #15803d; --bad: #b91c1c; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; color: var(--ink); background: #f9fafb; }
main { max-width: 1000px; margin: 0 auto; padding: 24px 20px 48px; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 16px; margin: 0 0 4px; }
.config { color: var(--muted); margin: 0 0 16px; }
.status { padding: 10px 14px; border-radius: 6px; font-weight: 600; margin: 0 0 16px; }
.status.ok { background: #dcfce7; color: var(--ok); }
.status.bad { background: #fee2e2; color: var(--bad); }
.figures { display: grid; grid-template-columns: repeat(3, 1fr); gap: 10px; margin: 0 0 20px; }
.figure { background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: 10px 12px; }
.figure .value { font-size: 18px; font-weight: 600; }
.figure .label { color: var(--muted); font-size: 12px; text-transform: uppercase; letter-spacing: .04em; }
section, figure.chart { background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: 14px 16px; margin: 0 0 18px; }
figure.chart { margin-left: 0; margin-right: 0; overflow-x: auto; }
figcaption p, .note { color: var(--muted); margin: 0 0 8px; }
.note { font-size: 12px; margin-top: 6px; }
ul.legend { list-style: none; padding: 0; margin: 0 0 8px; display: flex; flex-wrap: wrap; gap: 4px 14px; font-size: 12px; }
ul.legend li { cursor: default; display: flex; align-items: center; gap: 5px; }
ul.legend .swatch { width: 11px; height: 11px; border-radius: 2px; display: inline-block; }
figure.chart svg { width: 100%; height: auto; }
svg { display: block; font: 11px system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif; }
svg .grid { stroke: var(--line); stroke-width: 1; }
svg .separator { stroke: #d1d5db; stroke-width: 1; }
svg .tick, svg .total { fill: var(--muted); }
svg .label, svg .panel-title { fill: var(--ink); }
svg .panel-title { font-weight: 600; }
svg .empty { fill: var(--muted); font-size: 13px; }
svg .mark { transition: opacity .12s; }
svg rect.mark.failed { stroke: var(--bad); stroke-width: 1.5; }
svg rect.mark.faded { opacity: .4; }
svg path.area { fill-opacity: .25; stroke-width: 1.2; }
svg path.line { fill: none; stroke-width: 1.6; }
svg line.limit { stroke-dasharray: 5 4; stroke-width: 1.2; }
.panels { display: grid; grid-template-columns: repeat(2, 1fr); gap: 12px 16px; }
@media (max-width: 700px) { .panels, .figures { grid-template-columns: 1fr; } }
.highlighting .mark:not(.hl), .highlighting .marker:not(.hl) { opacity: .12; }
table { border-collapse: collapse; width: 100%; font-variant-numeric: tabular-nums; font-size: 13px; }
th, td { padding: 3px 8px; border-bottom: 1px solid var(--line); text-align: left; white-space: nowrap; }
th { color: var(--muted); font-weight: 600; }
td.num, th.num { text-align: right; }
td.abnormal { color: #b45309; font-weight: 600; }
.share { display: inline-block; height: 9px; background: #60a5fa; border-radius: 2px; vertical-align: middle; }
#tip { position: fixed; pointer-events: none; background: #111827; color: #f9fafb; padding: 6px 9px; border-radius: 5px; font-size: 12px; line-height: 1.5; white-space: pre-line; max-width: 440px; z-index: 10; box-shadow: 0 4px 14px rgba(0,0,0,.18); }
#tip strong { font-weight: 600; }
svg.plot { overflow: hidden; }
svg.plot * { vector-effect: non-scaling-stroke; }
svg.zoomable { cursor: crosshair; user-select: none; }
svg .extra-slot { fill: #f6f7f9; }
svg .marker.pause { fill: #eab308; fill-opacity: .2; }
svg .marker.pause.faint { fill-opacity: .1; }
svg .marker.pause.strip { fill-opacity: .9; }
svg .marker.dead { fill: #6b7280; fill-opacity: .16; }
svg .marker.death { stroke: #b91c1c; stroke-width: 2; }
svg .marker.steal { stroke: #7c3aed; stroke-width: 1.5; stroke-dasharray: 3 2; }
svg .marker.hit { stroke: transparent; stroke-width: 9; pointer-events: stroke; }
svg .marker.death, svg .marker.steal { pointer-events: none; }
svg .label.dead, svg .panel-title.dead { fill: #b91c1c; }
svg .baseline { stroke: #9ca3af; stroke-width: 1; }
svg .brush { fill: #2563eb; fill-opacity: .12; stroke: #2563eb; stroke-width: 1; pointer-events: none; }
svg rect.cell.empty { fill: #fafafa; stroke: #f3f4f6; }
svg rect.cell.self { fill: #f3f4f6; }
svg rect.mark:hover { stroke: #111827; stroke-width: 1.5; }
svg .cell-value { fill: var(--ink); font-size: 10px; pointer-events: none; }
svg .cell-value.dark { fill: #fff; }
svg .undelivered { fill: #dc2626; pointer-events: none; }
.panels svg.full { grid-column: 1 / -1; }
figure.chart { position: relative; }
.zoombar { position: absolute; top: 13px; right: 16px; max-width: 72%; display: flex; align-items: center; justify-content: flex-end; gap: 10px; font-size: 12px; color: var(--muted); white-space: nowrap; }
@media (max-width: 900px) { .zoombar { position: static; max-width: none; justify-content: flex-start; margin: 0 0 6px; } }
.zoombar button[hidden] { display: none; }
.zoombar button { font: inherit; padding: 2px 10px; border: 1px solid #d1d5db; border-radius: 4px; background: #fff; color: var(--ink); cursor: pointer; }
.zoombar button:hover { background: #f3f4f6; }
footer { color: var(--muted); font-size: 12px; margin-top: 24px; }
`;
