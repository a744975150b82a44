// The CSS and script inlined into every HTML report. Kept small and dependency-free so the file
// opens anywhere, offline, with nothing fetched. The script only adds tooltips and legend
// highlighting; the charts are complete without it.

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
svg path.area { fill-opacity: .25; stroke: #2563eb; stroke-width: 1.2; }
svg path.line { fill: none; stroke-width: 1.6; }
svg line.limit { stroke-dasharray: 5 4; stroke-width: 1.2; }
.panels { display: grid; grid-template-columns: repeat(2, 1fr); gap: 12px 16px; }
@media (max-width: 700px) { .panels, .figures { grid-template-columns: 1fr; } }
.highlighting .mark:not(.hl) { opacity: .12; }
table { border-collapse: collapse; width: 100%; font-variant-numeric: tabular-nums; font-size: 13px; }
th, td { padding: 3px 8px; border-bottom: 1px solid var(--line); text-align: left; white-space: nowrap; }
th { color: var(--muted); font-weight: 600; }
td.num, th.num { text-align: right; }
td.abnormal { color: #b45309; font-weight: 600; }
.share { display: inline-block; height: 9px; background: #60a5fa; border-radius: 2px; vertical-align: middle; }
#tip { position: fixed; pointer-events: none; background: #111827; color: #f9fafb; padding: 6px 8px; border-radius: 4px; font-size: 12px; white-space: pre-line; max-width: 420px; z-index: 10; }
footer { color: var(--muted); font-size: 12px; margin-top: 24px; }
`;

export const REPORT_SCRIPT = `
(() => {
  const tip = document.getElementById("tip");
  document.addEventListener("mouseover", (event) => {
    const target = event.target instanceof Element ? event.target.closest("[data-tip]") : null;
    if (!target) { tip.hidden = true; return; }
    tip.textContent = target.getAttribute("data-tip");
    tip.hidden = false;
  });
  document.addEventListener("mousemove", (event) => {
    const x = Math.min(event.clientX + 14, window.innerWidth - tip.offsetWidth - 8);
    const y = event.clientY + 16 + tip.offsetHeight > window.innerHeight ? event.clientY - tip.offsetHeight - 10 : event.clientY + 16;
    tip.style.left = x + "px";
    tip.style.top = y + "px";
  });
  for (const item of document.querySelectorAll("ul.legend li[data-series]")) {
    const chart = item.closest("figure.chart");
    const series = item.getAttribute("data-series");
    item.addEventListener("mouseenter", () => {
      chart.classList.add("highlighting");
      for (const mark of chart.querySelectorAll(".mark")) mark.classList.toggle("hl", mark.getAttribute("data-series") === series);
    });
    item.addEventListener("mouseleave", () => chart.classList.remove("highlighting"));
  }
})();
`;
