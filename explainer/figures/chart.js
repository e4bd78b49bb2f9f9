// Every k at once: a small SVG chart of a figure's measures at each cutoff k = 1..count, with
// the current k marked. The chart is a k control of its own: a click on a column, a drag across
// it, or the arrow keys move k, which the figure commits through its state like the list's
// marker. The figure computes every value with metrics.js; the chart only draws them.
import { formatNumber } from "explainer/metrics";
import { h, refocus, setAttr, setText } from "explainer/dom";

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
 * Where a chart of `count` columns puts things, in its viewBox: column k's centre `x(k)` and its
 * width `step`, a value's height `y(v, max)` (lines share 0 to 1; columns are scaled to `max`),
 * the column `nearest(at)` a pointer at x = `at` is over (its k, maybe outside 1..count), and
 * whether column k's tick is `labelled`: up to 15 columns every k; beyond (the workbench's lists
 * of 30), 1 and every fifth, since two-digit labels would run into each other.
 */
export function kChartScale(count) {
  const innerW = WIDTH - PAD.left - PAD.right;
  const innerH = HEIGHT - PAD.top - PAD.bottom;
  const step = innerW / count;
  return {
    step,
    innerH,
    x: (k) => PAD.left + step * (k - 0.5),
    y: (v, max = 1) => PAD.top + innerH * (1 - (max > 0 ? v / max : 0)),
    nearest: (at) => Math.round((at - PAD.left) / step + 0.5),
    labelled: (k) => count <= 15 || k === 1 || k % 5 === 0,
  };
}

/**
 * A chart of measures by k. Options:
 *   count       the largest k (the list's length, from the state class's limits)
 *   label       the chart's accessible name, as "P@k and R@k for every k"
 *   series      [{ key, name, kind: "line" | "columns", format? }]: lines share the left axis, 0 to 1;
 *               columns are scaled to the largest value given for them, written on the right axis
 *   onK(k)      the reader moved k on the chart
 * Returns { el, follow(k), update({ k, values: { key: [value at k = 1..count] }, dots: [[k, value]], legend }) }:
 * `dots` are points drawn on the first line (figure 1's AP terms), `legend` the line under the chart;
 * follow(k) gives the chart the figure's k before it is drawn (a figure that draws it in the next frame).
 */
export function createKChart({ count, label, series, onK }) {
  const el = h("figure", "kchart");
  el.dataset.picture = "chart"; // its picture's name (picture.js)
  const plot = svg("svg", { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, class: "kchart-svg", tabindex: 0, role: "slider" });
  setAttr(plot, "aria-label", label);
  setAttr(plot, "aria-valuemin", "1");
  setAttr(plot, "aria-valuemax", String(count));
  setAttr(plot, "aria-orientation", "horizontal");
  const key = h("p", "kchart-key");
  key.setAttribute("aria-hidden", "true"); // the slider's value text says the same
  const legend = h("figcaption", "kchart-legend");
  el.append(key, plot, legend);

  const scale = kChartScale(count);
  const { step, x, y, nearest: columnAt } = scale;

  // The band behind column k, then the axes, then the series, then the dots.
  const { band, columnsMax, kTicks } = drawAxes(plot, count, scale);
  const drawn = createSeries(plot, key, series, count, scale);
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
    return columnAt(((clientX - box.left) / box.width) * WIDTH);
  };
  followPointer(plot, move, nearest);
  stepKeys(plot, move, () => k, count);

  let drawnK = 0; // the k drawn, which a figure that draws the chart in the next frame leaves behind k for a moment
  return {
    el,
    /** The figure's k, at once: the keys and the pointer step from it, before the chart is drawn. */
    follow(nextK) {
      k = nextK;
    },
    update({ k: nextK, values, dots = [], legend: text = "" }) {
      // Only what changed is written, compared as numbers (each series keeps the values it last
      // drew): a click moves a few points, and an attribute written again, even to the same
      // value, costs the browser its style work all the same.
      k = nextK;
      if (nextK !== drawnK) {
        kTicks[drawnK - 1]?.classList.remove("is-current");
        kTicks[nextK - 1]?.classList.add("is-current");
        drawnK = nextK;
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
        drawSeries(s, vs, columnsMax, scale);
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

/** The chart's band behind the current column, its grid and value ticks, and a tick under each column. */
function drawAxes(plot, count, { step, innerH, x, y, labelled }) {
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
  const kTicks = []; // labelled as kChartScale says; the marker's label names the current k
  for (let k = 1; k <= count; k++) {
    const tick = svg("text", {
      class: labelled(k) ? "kchart-tick" : "kchart-tick is-unlabelled",
      x: x(k),
      y: HEIGHT - 6,
      "text-anchor": "middle",
    });
    tick.textContent = String(k);
    kTicks.push(tick);
    plot.append(tick);
  }
  return { band, columnsMax, kTicks };
}

/** Each series' group in the plot and its item in the key: columns, or a line with a point at each k. */
function createSeries(plot, key, series, count, { step, x }) {
  return series.map((given, i) => {
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
}

/**
 * The pointer moves k: a mouse or pen at once, a finger once it is known not to scroll the page,
 * on its first sideways move or when it lifts (a tap). A vertical swipe is the browser's
 * (touch-action: pan-y), which cancels it. The chart takes the focus with no ring, which is for
 * the keyboard (:focus-visible): the keys it then hears bring the ring back.
 */
function followPointer(plot, move, nearest) {
  let finger = null; // { id, x, y } from a finger's touch until it moves sideways, lifts or scrolls
  plot.addEventListener("pointerdown", (event) => {
    if (event.button !== 0) return;
    plot.setPointerCapture(event.pointerId);
    if (event.pointerType === "touch") {
      finger = { id: event.pointerId, x: event.clientX, y: event.clientY };
      return;
    }
    event.preventDefault();
    plot.focus({ preventScroll: true, focusVisible: false });
    move(nearest(event.clientX));
  });
  plot.addEventListener("pointermove", (event) => {
    if (!plot.hasPointerCapture(event.pointerId)) return;
    if (finger?.id === event.pointerId) {
      const [dx, dy] = [Math.abs(event.clientX - finger.x), Math.abs(event.clientY - finger.y)];
      if (dx < 6 || dx < dy) return; // not yet a sideways drag
      finger = null;
      plot.focus({ preventScroll: true, focusVisible: false });
    }
    move(nearest(event.clientX));
  });
  plot.addEventListener("pointerup", (event) => {
    if (finger?.id !== event.pointerId) return;
    finger = null;
    plot.focus({ preventScroll: true, focusVisible: false });
    move(nearest(event.clientX));
  });
  plot.addEventListener("pointercancel", () => (finger = null));
}

/** The arrow keys, Page Up and Down, Home and End step k from `at()`. */
function stepKeys(plot, move, at, count) {
  const keySteps = {
    ArrowLeft: () => at() - 1,
    ArrowDown: () => at() - 1,
    ArrowRight: () => at() + 1,
    ArrowUp: () => at() + 1,
    PageDown: () => at() - 3,
    PageUp: () => at() + 3,
    Home: () => 1,
    End: () => count,
  };
  plot.addEventListener("keydown", (event) => {
    const to = keySteps[event.key];
    if (!to) return;
    event.preventDefault();
    // A pointer's focus had no ring; the keyboard's use shows it.
    if (!plot.matches(":focus-visible")) refocus(plot);
    move(to());
  });
}

/** Write a series' values `vs` at k = 1..count, only those that changed; columns rescale to their largest. */
function drawSeries(s, vs, columnsMax, { innerH, x, y }) {
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

const PR_PAD = { left: 30, right: 62, top: 20, bottom: 24 };

/**
 * Where the precision-recall view draws the relevant documents never retrieved: each at precision
 * 0 and the recall reached had it been found, after the `points`' relevant ranks (none when R = 0).
 */
export function missedRecalls(points, missed, nRelevant) {
  const found = points.filter((p) => p.relevant).length;
  return Array.from({ length: nRelevant ? missed : 0 }, (_, j) => (found + j + 1) / nRelevant);
}

/** The precision-recall view's description: every point's R@k and P@k, the current k, and the legend. */
export function prDescription(points, k, legend) {
  const f = (v) => formatNumber(v);
  const each = points.map((p) => `k = ${p.k}${p.relevant ? " (relevant)" : ""}: R@${p.k} ${f(p.recall)}, P@${p.k} ${f(p.precision)}`);
  return `${each.join("; ")}. The current k is ${k}. ${legend}`;
}
let prCharts = 0; // each view's title and description have ids of their own

/**
 * Figure 1's precision-recall view: the point (R@k, P@k) for each k, the points at relevant ranks
 * emphasised, and AP as what it is, the mean of the precision at those ranks (a 0 for each relevant
 * document never retrieved, drawn on the axis), shown as a dashed line at its height. An image, not a
 * control: its title and description say every value. The figure computes every value with
 * metrics.js; this only draws and writes them.
 * Returns { el, update({ k, points: [{ k, recall, precision, relevant }], missed, nRelevant, ap, legend }),
 * shown() } (call shown() after taking away el.hidden).
 */
export function createPrChart({ label }) {
  const el = h("figure", "kchart prchart");
  el.dataset.picture = "precision-recall";
  const plot = svg("svg", { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, class: "prchart-svg", role: "img" });
  // Its name and description, by id too: Chromium names an image by its <title> but does not
  // describe it by its <desc>.
  const id = `prchart-${++prCharts}`;
  const title = svg("title", { id: `${id}-title` });
  const desc = svg("desc", { id: `${id}-desc` });
  plot.append(title, desc);
  setAttr(plot, "aria-labelledby", title.id);
  setAttr(plot, "aria-describedby", desc.id);
  const key = h("p", "kchart-key");
  key.setAttribute("aria-hidden", "true"); // the description says the same
  const current = h("span", "kchart-value");
  key.append(current);
  const legend = h("figcaption", "kchart-legend");
  el.append(key, plot, legend);

  const innerW = WIDTH - PR_PAD.left - PR_PAD.right;
  const innerH = HEIGHT - PR_PAD.top - PR_PAD.bottom;
  const x = (recall) => PR_PAD.left + innerW * recall;
  const y = (precision) => PR_PAD.top + innerH * (1 - precision);
  for (const v of [0, 0.5, 1]) {
    plot.append(svg("line", { class: "kchart-grid", x1: x(0), x2: x(1), y1: y(v), y2: y(v) }));
    plot.append(svg("line", { class: "kchart-grid prchart-vgrid", x1: x(v), x2: x(v), y1: y(0), y2: y(1) }));
    const left = svg("text", { class: "kchart-tick", x: PR_PAD.left - 4, y: y(v) + 4, "text-anchor": "end" });
    left.textContent = String(v);
    const under = svg("text", { class: "kchart-tick", x: x(v), y: HEIGHT - 6, "text-anchor": "middle" });
    under.textContent = String(v);
    plot.append(left, under);
  }
  const yName = svg("text", { class: "kchart-tick prchart-axis", x: 4, y: PR_PAD.top - 8 });
  yName.textContent = "precision";
  const xName = svg("text", { class: "kchart-tick prchart-axis", x: WIDTH - 2, y: HEIGHT - 6, "text-anchor": "end" });
  xName.textContent = "recall";
  plot.append(yName, xName);
  const apLine = svg("line", { class: "prchart-ap", x1: x(0), x2: x(1) });
  const apLabel = svg("text", { class: "prchart-ap-label", x: x(1) + 6 });
  const path = svg("polyline", { class: "prchart-path", fill: "none" });
  const pointGroup = svg("g", { class: "prchart-points" });
  const missedGroup = svg("g", { class: "prchart-missed" });
  const ring = svg("circle", { class: "prchart-current", r: 8 });
  const cursorLabel = svg("text", { class: "kchart-cursor", "text-anchor": "middle" });
  plot.append(apLine, path, pointGroup, missedGroup, ring, cursorLabel, apLabel);

  // Drawn only while shown: figure 1 shows one view at a time, and this one makes its points anew
  // on each draw. Hidden, it keeps what it was given and draws it when shown again.
  let given = null;
  let stale = false;
  return {
    el,
    update(values) {
      given = values;
      stale = el.hidden;
      if (!stale) draw(values);
    },
    /** The view was shown: draw what it was last given, if it has not been drawn. */
    shown() {
      if (stale && !el.hidden) {
        stale = false;
        draw(given);
      }
    },
  };

  function draw({ k, points, missed, nRelevant, ap, legend: text = "" }) {
    const f = (v) => formatNumber(v);
    path.setAttribute("points", points.map((p) => `${x(p.recall)},${y(p.precision)}`).join(" "));
    pointGroup.replaceChildren(
      ...points.map((p) => {
        const point = svg("circle", {
          class: p.relevant ? "prchart-point is-relevant" : "prchart-point",
          cx: x(p.recall),
          cy: y(p.precision),
          r: p.relevant ? 5 : 3,
          "data-k": p.k,
          "data-recall": p.recall,
          "data-precision": p.precision,
        });
        return point;
      }),
    );
    // A relevant document never retrieved: its precision counts 0 in AP, drawn on the axis where
    // recall would have reached had it been found.
    missedGroup.replaceChildren(
      ...missedRecalls(points, missed, nRelevant).map((recall) =>
        svg("circle", { class: "prchart-point is-missed", cx: x(recall), cy: y(0), r: 5, "data-precision": 0 }),
      ),
    );
    const at = points[k - 1];
    ring.setAttribute("cx", String(x(at.recall)));
    ring.setAttribute("cy", String(y(at.precision)));
    cursorLabel.setAttribute("x", String(Math.min(Math.max(x(at.recall), PR_PAD.left + 22), x(1) - 10)));
    cursorLabel.setAttribute("y", String(at.precision > 0.75 ? y(at.precision) + 22 : y(at.precision) - 12));
    setText(cursorLabel, `k = ${k}`);
    apLine.setAttribute("y1", String(y(ap)));
    apLine.setAttribute("y2", String(y(ap)));
    apLine.dataset.value = String(ap);
    apLabel.setAttribute("y", String(Math.max(y(ap) + 4, PR_PAD.top + 4)));
    setText(apLabel, `AP ${f(ap)}`);
    setText(current, `R@${k} ${f(at.recall)}, P@${k} ${f(at.precision)}`);
    setText(title, `${label}, k = 1 to ${points.length}`);
    setText(desc, prDescription(points, k, text));
    setText(legend, text);
  }
}
