import { MAX_ZOOM } from "./timeline.js";

// The inline script of the HTML report. It only enhances charts that are complete without it:
// tooltips from `data-tip` (text only, never parsed as markup), legend highlighting, and zooming
// every time chart at once (timeline.ts): drag across a plot to zoom to that span, Ctrl/⌘ + wheel
// or a pinch to zoom at the pointer, Shift + wheel to pan, double-click or the button to reset.
// The instructions are written by the script too: without it there is nothing to zoom.
// A zoom changes only each plot's viewBox and redraws its time axis; marks are never rewritten.

export const REPORT_SCRIPT = `
(() => {
  const MAX_ZOOM = ${MAX_ZOOM};
  const tip = document.getElementById("tip");
  const showTip = (text) => {
    const [head, ...rest] = text.split("\\n");
    const strong = document.createElement("strong");
    strong.textContent = head;
    tip.replaceChildren(strong);
    for (const line of rest) tip.append(document.createElement("br"), line);
    tip.hidden = false;
  };
  let dragging = null;
  document.addEventListener("mouseover", (event) => {
    const target = event.target instanceof Element ? event.target.closest("[data-tip]") : null;
    if (!target || dragging) { tip.hidden = true; return; }
    showTip(target.getAttribute("data-tip"));
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
      for (const mark of chart.querySelectorAll(".mark, .marker")) mark.classList.toggle("hl", mark.getAttribute("data-series") === series);
    });
    item.addEventListener("mouseleave", () => chart.classList.remove("highlighting"));
  }

  const frames = [...document.querySelectorAll("g.time-frame")].map((group) => {
    const plot = group.querySelector("svg.plot");
    const axis = group.querySelector("g.x-axis");
    const box = plot.getAttribute("viewBox").split(" ").map(Number);
    return { group, plot, axis, original: [...axis.childNodes], end: Number(group.dataset.end), ticks: Number(group.dataset.ticks),
      x: Number(plot.getAttribute("x")), y: Number(plot.getAttribute("y")), width: Number(plot.getAttribute("width")), height: Number(plot.getAttribute("height")), units: box[2], localHeight: box[3] };
  });
  if (frames.length === 0) return;
  const end = Math.max(...frames.map((frame) => frame.end));
  let view = [0, end];
  // One bar in the top corner of each time chart, beside its title: how to zoom, or what is
  // shown and a reset button. It overlays the figure, so zooming never shifts the page.
  const HINT = "Drag to zoom (all charts over time follow) · Ctrl/⌘ + wheel zooms · Shift + wheel pans · double-click resets";
  const bars = [];
  for (const figure of new Set(frames.map((frame) => frame.plot.closest("figure.chart")))) {
    if (!figure) continue;
    const bar = document.createElement("div");
    bar.className = "zoombar";
    const label = document.createElement("span");
    // The hint once, on the first time chart; the others only say what is shown when zoomed.
    const hint = bars.length === 0 ? HINT : "";
    label.textContent = hint;
    const reset = document.createElement("button");
    reset.type = "button";
    reset.textContent = "Reset zoom";
    reset.hidden = true;
    reset.addEventListener("click", () => zoom(0, end));
    bar.append(label, reset);
    figure.querySelector("figcaption").after(bar);
    bars.push({ label, reset, hint });
  }
  const niceStep = (span, target) => {
    const rough = span / target;
    const power = 10 ** Math.floor(Math.log10(rough));
    return [1, 2, 5, 10].map((m) => m * power).find((step) => step >= rough);
  };
  const format = (t, step, max) => {
    const [scale, unit] = max >= 1 ? [1, "s"] : max >= 1e-3 ? [1e3, "ms"] : [1e6, "µs"];
    const digits = Math.min(6, Math.max(0, Math.ceil(-Math.log10(step * scale) - 1e-9)));
    return (t * scale).toFixed(digits) + " " + unit;
  };
  // The SVG namespace, taken from the page so that the file names no address at all.
  const SVG = frames[0].plot.namespaceURI;
  const make = (tag, attributes, text) => {
    const node = document.createElementNS(SVG, tag);
    for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
    if (text !== undefined) node.textContent = text;
    return node;
  };
  const drawAxis = (frame, a, b) => {
    if (a === 0 && b === end) { frame.axis.replaceChildren(...frame.original); return; }
    const step = niceStep(b - a, frame.ticks);
    const nodes = [];
    for (let t = Math.ceil(a / step) * step; t <= b + step * 1e-9; t += step) {
      const x = frame.x + ((t - a) / (b - a)) * frame.width;
      const bottom = frame.y + frame.height;
      nodes.push(make("line", { class: "grid", x1: x, x2: x, y1: frame.y, y2: bottom }), make("text", { class: "tick", x, y: bottom + 14, "text-anchor": "middle" }, format(t, step, b)));
    }
    frame.axis.replaceChildren(...nodes);
  };
  const zoom = (a, b) => {
    const span = Math.min(end, Math.max(end / MAX_ZOOM, b - a));
    a = Math.min(Math.max(0, a), end - span);
    b = a + span;
    view = [a, b];
    for (const frame of frames) {
      const perSecond = frame.units / (frame.end > 0 ? frame.end : 1);
      frame.plot.setAttribute("viewBox", (a * perSecond) + " 0 " + (span * perSecond) + " " + frame.localHeight);
      drawAxis(frame, a, b);
    }
    const zoomed = a > 0 || b < end;
    const step = niceStep(span, 4);
    for (const { label, reset, hint } of bars) {
      reset.hidden = !zoomed;
      label.textContent = zoomed ? "Showing " + format(a, step / 10, b) + " to " + format(b, step / 10, b) + " of " + format(end, step / 10, end) + "." : hint;
    }
  };
  // The plot's box on screen, from its own x, y, width and height in the chart's coordinates:
  // Chromium's getBoundingClientRect of a nested <svg> is the box of its content, which a zoom
  // makes wider than the plot.
  const plotBox = (frame) => {
    const m = frame.group.getScreenCTM();
    const left = m.a * frame.x + m.e;
    const top = m.d * frame.y + m.f;
    const width = m.a * frame.width;
    const height = m.d * frame.height;
    return { left, top, width, height, right: left + width, bottom: top + height };
  };
  const frameAt = (event) => frames.find((frame) => {
    const box = plotBox(frame);
    return event.clientX >= box.left && event.clientX <= box.right && event.clientY >= box.top && event.clientY <= box.bottom;
  });
  const timeAt = (frame, clientX) => {
    const box = plotBox(frame);
    return view[0] + ((clientX - box.left) / box.width) * (view[1] - view[0]);
  };
  for (const svg of new Set(frames.map((frame) => frame.plot.ownerSVGElement))) {
    svg.classList.add("zoomable");
    svg.addEventListener("mousedown", (event) => {
      const frame = event.button === 0 ? frameAt(event) : undefined;
      if (!frame) return;
      event.preventDefault();
      const brush = make("rect", { class: "brush", x: 0, y: frame.y, width: 0, height: frame.height });
      svg.append(brush);
      dragging = { frame, svg, brush, startX: event.clientX, lastX: event.clientX };
      tip.hidden = true;
    });
    svg.addEventListener("wheel", (event) => {
      const frame = frameAt(event);
      if (!frame || !(event.ctrlKey || event.metaKey || event.shiftKey)) return;
      event.preventDefault();
      const span = view[1] - view[0];
      const delta = event.deltaY || event.deltaX;
      if (event.shiftKey) {
        const shift = (delta / 500) * span;
        zoom(view[0] + shift, view[1] + shift);
        return;
      }
      const at = timeAt(frame, event.clientX);
      const factor = Math.exp(delta * 0.002);
      zoom(at - (at - view[0]) * factor, at + (view[1] - at) * factor);
    }, { passive: false });
    svg.addEventListener("dblclick", (event) => { if (frameAt(event)) zoom(0, end); });
  }
  window.addEventListener("mousemove", (event) => {
    if (!dragging) return;
    dragging.lastX = event.clientX;
    const box = plotBox(dragging.frame);
    const scale = dragging.frame.width / box.width;
    const left = Math.max(box.left, Math.min(dragging.startX, event.clientX));
    const right = Math.min(box.right, Math.max(dragging.startX, event.clientX));
    dragging.brush.setAttribute("x", String(dragging.frame.x + (left - box.left) * scale));
    dragging.brush.setAttribute("width", String(Math.max(0, right - left) * scale));
  });
  window.addEventListener("mouseup", () => {
    if (!dragging) return;
    const { frame, brush, startX, lastX } = dragging;
    dragging = null;
    brush.remove();
    if (Math.abs(lastX - startX) < 4) return;
    const a = timeAt(frame, Math.min(startX, lastX));
    const b = timeAt(frame, Math.max(startX, lastX));
    zoom(a, b);
  });
})();
`;
