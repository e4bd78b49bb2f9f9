// Every k at once: a small SVG chart of a figure's measures at each cutoff k = 1..count, with
// the current k marked. The chart is a k control of its own: a click on a column, a drag across
// it, or the arrow keys move k, which the figure commits through its state like the list's
// marker. The figure computes every value with metrics.js; the chart only draws them.
import { formatNumber } from "explainer/metrics";
import { h, setAttr, setText } from "explainer/kit";

const SVG_NS = "http://www.w3.org/2000/svg";
const WIDTH = 360;
const HEIGHT = 160;
const PAD = { left: 30, right: 40, top: 12, bottom: 24 };

function svg(tag, attrs = {}) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, String(value));
  return node;
}

/**
 * A chart of measures by k. Options:
 *   count       the largest k (the list's length, from the state class's limits)
 *   label       the chart's accessible name, as "P@k and R@k for every k"
 *   series      [{ key, name, kind: "line" | "columns", format? }]: lines share the left axis, 0 to 1;
 *               columns are scaled to the largest value given for them, written on the right axis
 *   onK(k)      the reader moved k on the chart
 * Returns { el, update({ k, values: { key: [value at k = 1..count] }, dots: [[k, value]], legend }) }:
 * `dots` are points drawn on the first line (figure 1's AP terms), `legend` the line under the chart.
 */
export function createKChart({ count, label, series, onK }) {
  const el = h("figure", "kchart");
  const plot = svg("svg", { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, class: "kchart-svg", tabindex: 0, role: "slider" });
  setAttr(plot, "aria-label", label);
  setAttr(plot, "aria-valuemin", "1");
  setAttr(plot, "aria-valuemax", String(count));
  setAttr(plot, "aria-orientation", "horizontal");
  const key = h("p", "kchart-key");
  key.setAttribute("aria-hidden", "true"); // the slider's value text says the same
  const legend = h("figcaption", "kchart-legend");
  el.append(key, plot, legend);

  const innerW = WIDTH - PAD.left - PAD.right;
  const innerH = HEIGHT - PAD.top - PAD.bottom;
  const step = innerW / count;
  const x = (k) => PAD.left + step * (k - 0.5);
  const y = (v, max = 1) => PAD.top + innerH * (1 - (max > 0 ? v / max : 0));

  // The band behind column k, then the axes, then the series, then the dots.
  const band = svg("rect", { class: "kchart-band", y: PAD.top, width: step, height: innerH });
  plot.append(band);
  for (const v of [0, 0.5, 1]) {
    plot.append(svg("line", { class: "kchart-grid", x1: PAD.left, x2: WIDTH - PAD.right, y1: y(v), y2: y(v) }));
    const tick = svg("text", { class: "kchart-tick", x: PAD.left - 4, y: y(v) + 4, "text-anchor": "end" });
    tick.textContent = String(v);
    plot.append(tick);
  }
  const columnsMax = svg("text", { class: "kchart-tick kchart-max", x: WIDTH - PAD.right + 4, y: y(1) + 4 });
  plot.append(columnsMax);
  const kTicks = [];
  for (let k = 1; k <= count; k++) {
    const tick = svg("text", { class: "kchart-tick", x: x(k), y: HEIGHT - 6, "text-anchor": "middle" });
    tick.textContent = String(k);
    kTicks.push(tick);
    plot.append(tick);
  }
  const drawn = series.map((given, i) => {
    const s = { format: (v) => formatNumber(v), ...given };
    const group = svg("g", { class: `kchart-series kchart-${s.kind} kchart-s${i}`, "data-series": s.key });
    plot.append(group);
    const swatch = h("span", `kchart-swatch kchart-s${i}`);
    const value = h("span", "kchart-value");
    const item = h("span", "kchart-item");
    item.append(swatch, value);
    key.append(item);
    if (s.kind === "columns") {
      const bars = Array.from({ length: count }, (_, j) => {
        const bar = svg("rect", { x: x(j + 1) - step * 0.3, width: step * 0.6 });
        group.append(bar);
        return bar;
      });
      return { ...s, group, bars, value, last: [] };
    }
    const path = svg("polyline", { fill: "none" });
    const points = Array.from({ length: count }, (_, j) => svg("circle", { r: 2.5, cx: x(j + 1) }));
    group.append(path, ...points);
    return { ...s, group, path, points, value, last: [] };
  });
  const dotGroup = svg("g", { class: "kchart-dots" });
  plot.append(dotGroup);
  const cursorLabel = svg("text", { class: "kchart-cursor", y: PAD.top + 12, "text-anchor": "middle" });
  plot.append(cursorLabel);

  let k = 0;
  const move = (next) => {
    const to = Math.max(1, Math.min(count, next));
    if (to !== k) onK(to);
  };
  const nearest = (clientX) => {
    const box = plot.getBoundingClientRect();
    const at = ((clientX - box.left) / box.width) * WIDTH;
    return Math.round((at - PAD.left) / step + 0.5);
  };
  plot.addEventListener("pointerdown", (event) => {
    if (event.button !== 0) return;
    event.preventDefault();
    plot.focus({ preventScroll: true });
    plot.setPointerCapture(event.pointerId);
    move(nearest(event.clientX));
  });
  plot.addEventListener("pointermove", (event) => {
    if (plot.hasPointerCapture(event.pointerId)) move(nearest(event.clientX));
  });
  const keySteps = {
    ArrowLeft: () => k - 1,
    ArrowDown: () => k - 1,
    ArrowRight: () => k + 1,
    ArrowUp: () => k + 1,
    PageDown: () => k - 3,
    PageUp: () => k + 3,
    Home: () => 1,
    End: () => count,
  };
  plot.addEventListener("keydown", (event) => {
    const to = keySteps[event.key];
    if (!to) return;
    event.preventDefault();
    move(to());
  });

  return {
    el,
    update({ k: nextK, values, dots = [], legend: text = "" }) {
      // Only what changed is written, compared as numbers (each series keeps the values it last
      // drew): a click moves a few points, and an attribute written again, even to the same
      // value, costs the browser its style work all the same.
      if (nextK !== k) {
        kTicks[k - 1]?.classList.remove("is-current");
        kTicks[nextK - 1]?.classList.add("is-current");
        k = nextK;
        band.setAttribute("x", String(x(k) - step / 2));
        cursorLabel.setAttribute("x", String(Math.min(Math.max(x(k), PAD.left + 22), WIDTH - PAD.right - 22)));
        cursorLabel.textContent = `k = ${k}`;
      }
      const said = [];
      for (const s of drawn) {
        const vs = values[s.key];
        const shown = `${s.name.replace("k", String(k))} ${s.format(vs[k - 1])}`;
        setText(s.value, shown);
        said.push(shown);
        const { last } = s;
        if (s.kind === "columns") {
          const max = Math.max(...vs, 1e-9);
          const rescaled = max !== last.max;
          if (rescaled) columnsMax.textContent = s.format(max);
          last.max = max;
          s.bars.forEach((bar, j) => {
            if (!rescaled && vs[j] === last[j]) return;
            last[j] = vs[j];
            bar.setAttribute("y", String(y(vs[j], max)));
            bar.setAttribute("height", String(PAD.top + innerH - y(vs[j], max)));
            bar.dataset.value = String(vs[j]);
          });
        } else if (vs.some((v, j) => v !== last[j])) {
          s.path.setAttribute("points", vs.map((v, j) => `${x(j + 1)},${y(v)}`).join(" "));
          s.points.forEach((point, j) => {
            if (vs[j] === last[j]) return;
            last[j] = vs[j];
            point.setAttribute("cy", String(y(vs[j])));
            point.dataset.value = String(vs[j]);
          });
        }
      }
      // The dots are kept and moved; only a change in their number adds or takes away circles.
      while (dotGroup.children.length > dots.length) dotGroup.lastChild.remove();
      while (dotGroup.children.length < dots.length) dotGroup.append(svg("circle", { class: "kchart-dot", r: 5 }));
      dots.forEach(([at, v], j) => {
        const dot = dotGroup.children[j];
        if (dot.dataset.k === String(at) && dot.dataset.value === String(v)) return;
        dot.setAttribute("cx", String(x(at)));
        dot.setAttribute("cy", String(y(v)));
        dot.dataset.k = String(at);
        dot.dataset.value = String(v);
      });
      setAttr(plot, "aria-valuenow", String(k));
      setAttr(plot, "aria-valuetext", `k = ${k}: ${said.join(", ")}`);
      setText(legend, text);
    },
  };
}
