// Figure 3: many queries. Each query is a strip of ranked results (click or drag to set
// the relevant ranks); its reciprocal rank or average precision is a bar; the mean (MRR
// or MAP) and the median are lines across the bars; the lowest queries are called out.
// State: { a: [[relevant ranks] per query], b: same for a second system or [], measure: "rr" | "ap" }.
import { averagePrecision, formatNumber, meanAveragePrecision, meanReciprocalRank, median, reciprocalRank } from "explainer/metrics";
import { byPointer, h, setAttr, setText } from "explainer/dom";
import { Ignored, parseChoice, parseIntegers } from "explainer/query";
import { createRadioGroup } from "explainer/controls";
import { mountFigure } from "explainer/shell";

const SYSTEMS = ["a", "b"];
const NAMES = { a: "System A", b: "System B" };
const f = (x) => formatNumber(x);

/** A query's binary grades down to `depth`, from its relevant ranks. */
export function gradesOf(ranks, depth) {
  return Array.from({ length: depth }, (_, i) => (ranks.includes(i + 1) ? 1 : 0));
}

/** One system's numbers and their arithmetic, all from the metrics module. */
export function systemReadout(runs, measure, depth) {
  const rankings = runs.map((ranks) => gradesOf(ranks, depth));
  const symbol = measure === "rr" ? "RR" : "AP";
  const mean_ = measure === "rr" ? "MRR" : "MAP";
  const values =
    measure === "rr" ? rankings.map((g) => reciprocalRank(g)) : rankings.map((g, q) => averagePrecision(g, runs[q].length));
  const mean =
    measure === "rr" ? meanReciprocalRank(rankings) : meanAveragePrecision(rankings, runs.map((r) => r.length));
  const terms = runs.map((ranks, q) => {
    if (measure === "rr") return ranks.length ? `1/${Math.min(...ranks)}` : "0";
    return f(values[q]);
  });
  const lowest = runs.length > 1 ? Math.min(...values) : null;
  return {
    values,
    mean,
    median: median(values),
    meanText: runs.length ? `${mean_} = (${terms.join(" + ")}) / ${runs.length} = ${f(mean)}` : `${mean_} = 0 (no queries)`,
    medianText: `Median ${symbol} = ${f(median(values))}`,
    rowText: runs.map((ranks, q) => {
      if (measure === "ap") return f(values[q]);
      return ranks.length ? `1/${Math.min(...ranks)} = ${f(values[q])}` : "0 (no hit)";
    }),
    // The lowest queries, called out when they sit below the mean.
    lowest: values.map((v) => lowest !== null && v === lowest && v < mean),
    lowestText:
      lowest !== null && lowest < mean
        ? `Lowest: ${values.flatMap((v, q) => (v === lowest ? [`Q${q + 1}`] : [])).join(", ")} at ${f(lowest)}, ` +
          `against a mean of ${f(mean)}.`
        : "",
  };
}

/** The URL keys: a=1|3|10 (each query's relevant ranks, queries split by |), b=..., measure=rr|ap. */
export function queryFields({ limits }) {
  const runs = (name) => (text, state) => {
    const { min_queries: fewest, max_queries: most, max_rank: deepest } = limits[name];
    const queries = text === "" ? [] : text.split("|");
    if (queries.length < fewest || queries.length > most) {
      throw new Ignored(`${name} must list ${fewest} to ${most} queries, split by |`);
    }
    const ranks = queries.map((q) => {
      const ranks = parseIntegers(q, name, 1, deepest, `ranks from 1 to ${deepest} for each query`);
      if (new Set(ranks).size !== ranks.length) throw new Ignored(`${name} lists a rank twice in one query`);
      return ranks;
    });
    return { ...state, [name]: ranks };
  };
  return {
    a: runs("a"),
    b: runs("b"),
    measure: (text, state) => ({ ...state, measure: parseChoice(text, "measure", limits.measure.options) }),
  };
}

export function toQuery(state) {
  const runs = (queries) => queries.map((ranks) => ranks.join(",")).join("|");
  return [
    ["a", runs(state.a)],
    ["b", runs(state.b)],
    ["measure", state.measure],
  ];
}

export function render(view) {
  mountFigure(view, { className: "fig-queries", queryFields, toQuery, build });
}

/** The state after marking `rank` relevant, or not, in query `q` of `system`. */
function toggled(state, system, q, rank) {
  const runs = structuredClone(state[system]);
  const ranks = runs[q];
  runs[q] = ranks.includes(rank) ? ranks.filter((r) => r !== rank) : [...ranks, rank].sort((x, y) => x - y);
  return { ...state, [system]: runs };
}

/**
 * One query's row: a strip of ranks (press a square to mark it, drag a marked one to move it;
 * the keyboard moves a cursor and marks with Enter or Space), its bar, and its value.
 */
function createQueryRow(shell, system, q) {
  const depth = shell.limits[system].max_rank;
  const row = h("div", "q-row");
  row.dataset.query = String(q + 1);
  const strip = h("div", "q-strip");
  strip.tabIndex = 0;
  strip.setAttribute("role", "group");
  const cells = Array.from({ length: depth }, (_, i) => {
    const cell = h("span", "q-cell");
    cell.dataset.rank = String(i + 1);
    cell.title = `Rank ${i + 1}`;
    strip.append(cell);
    return cell;
  });
  const track = h("span", "q-track");
  const parts = { row, strip, cells, bar: h("span", "q-bar"), meanMark: h("span", "q-mean") };
  parts.medianMark = h("span", "q-median");
  parts.value = h("span", "q-value");
  track.append(parts.bar, parts.meanMark, parts.medianMark);
  row.append(h("span", "q-label", `Q${q + 1}`), strip, track, parts.value);
  const toggle = (rank) => shell.commit(toggled(shell.state(), system, q, rank));

  // Keyboard: a roving cursor inside the strip.
  let cursor = 0;
  const showCursor = () => cells.forEach((c, i) => c.classList.toggle("q-cursor", i === cursor && strip.matches(":focus-visible")));
  strip.addEventListener("focus", showCursor);
  strip.addEventListener("blur", () => cells.forEach((c) => c.classList.remove("q-cursor")));
  strip.addEventListener("keydown", (event) => {
    const moves = { ArrowLeft: -1, ArrowRight: 1, ArrowUp: -1, ArrowDown: 1, Home: -depth, End: depth };
    if (event.key in moves) {
      event.preventDefault();
      cursor = Math.max(0, Math.min(depth - 1, cursor + moves[event.key]));
      showCursor();
    } else if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      toggle(cursor + 1);
    }
  });

  // Pointer: press an empty square to mark it; press a marked one and drag to move it, or release to unmark.
  let dragging = null;
  const cellAt = (event) => {
    const target = event.target.closest?.(".q-cell") ?? document.elementFromPoint(event.clientX, event.clientY);
    const box = strip.getBoundingClientRect();
    const i = Math.floor(((event.clientX - box.left) / box.width) * depth);
    return target?.dataset?.rank ? Number(target.dataset.rank) : Math.max(1, Math.min(depth, i + 1));
  };
  // A finger taps a square (a click, which a swipe that scrolls never makes); a mouse presses,
  // and may drag a marked square along the strip.
  strip.addEventListener("click", (event) => {
    if (event.pointerType === "touch") toggle(cellAt(event));
  });
  strip.addEventListener("pointerdown", (event) => {
    if (event.button !== 0 || event.pointerType === "touch") return;
    event.preventDefault();
    const rank = cellAt(event);
    cursor = rank - 1;
    if (!shell.state()[system][q].includes(rank)) return toggle(rank);
    strip.setPointerCapture(event.pointerId);
    dragging = { from: rank, moved: false };
  });
  strip.addEventListener("pointermove", (event) => {
    if (!dragging || !strip.hasPointerCapture(event.pointerId)) return;
    const rank = cellAt(event);
    const state = shell.state();
    if (rank === dragging.from || state[system][q].includes(rank)) return;
    const runs = structuredClone(state[system]);
    runs[q] = runs[q].map((r) => (r === dragging.from ? rank : r)).sort((x, y) => x - y);
    dragging = { from: rank, moved: true };
    shell.commit({ ...state, [system]: runs });
  });
  const end = (event) => {
    if (!dragging) return;
    if (!dragging.moved) toggle(dragging.from);
    dragging = null;
    if (strip.hasPointerCapture(event.pointerId)) strip.releasePointerCapture(event.pointerId);
  };
  strip.addEventListener("pointerup", end);
  strip.addEventListener("pointercancel", () => (dragging = null));

  // On a touch screen the strip is wider than the phone and scrolls sideways: each edge with
  // ranks beyond it fades (queries.css), so that a reader knows there are more to see.
  const edges = () => {
    const beyond = strip.scrollWidth - strip.clientWidth;
    strip.classList.toggle("q-more-before", strip.scrollLeft > 1);
    strip.classList.toggle("q-more-after", strip.scrollLeft < beyond - 1);
  };
  strip.addEventListener("scroll", edges, { passive: true });
  if (globalThis.ResizeObserver) new ResizeObserver(edges).observe(strip);
  return parts;
}

/** One system's panel: its mean and median, its lowest queries, a row per query, and + / − query. */
function createSystemPanel(shell, system) {
  const { min_queries: fewest, max_queries: most, max_rank: depth } = shell.limits[system];
  const box = h("section", "system");
  box.dataset.system = system;
  const lines = { mean: h("p", "metric-formula system-mean"), median: h("p", "metric-note system-median") };
  lines.lowest = h("p", "system-lowest");
  const rowsBox = h("div", "q-rows");
  const more = h("button", "fig-button", "+ query");
  const fewer = h("button", "fig-button", "− query");
  more.type = fewer.type = "button";
  more.setAttribute("aria-label", `Add a query to ${NAMES[system]}`);
  fewer.setAttribute("aria-label", `Remove the last query of ${NAMES[system]}`);
  const resize = (next) => {
    const state = shell.state();
    if (next.length >= fewest && next.length <= most) shell.commit({ ...state, [system]: next });
  };
  more.addEventListener("click", () => resize([...shell.state()[system], [1]]));
  fewer.addEventListener("click", () => resize(shell.state()[system].slice(0, -1)));
  const tools = h("div", "fig-tools");
  tools.append(fewer, more);
  const head = h("div", "q-row q-head");
  head.setAttribute("aria-hidden", "true");
  const trackHead = h("span", "q-track-head");
  head.append(h("span", "q-label", ""), h("span", "q-strip-head", `Ranks 1 to ${depth}`), trackHead, h("span", "q-value"));
  // Its own size container, so that its rows lay out for the panel's width, not the figure's.
  const table = h("div", "q-table");
  table.append(head, rowsBox);
  box.append(h("h3", "system-name", NAMES[system]), lines.mean, lines.median, lines.lowest, table, tools);
  const rows = [];

  return {
    box,
    /**
     * Redraw for `state`; returns what a screen reader hears of this system, and its mean as the
     * value to predict (its mean and median lines, and the lowest queries' line, hide with it).
     */
    update(state) {
      const runs = state[system];
      while (rows.length > runs.length) rows.pop().row.remove();
      while (rows.length < runs.length) {
        rows.push(createQueryRow(shell, system, rows.length));
        rowsBox.append(rows.at(-1).row);
      }
      const r = systemReadout(runs, state.measure, depth);
      const symbol = state.measure === "rr" ? "RR" : "AP";
      setText(lines.mean, r.meanText);
      setText(lines.median, `${r.medianText}. The mean is the solid line, the median the dashed one.`);
      setAttr(more, "aria-disabled", String(runs.length >= most));
      setAttr(fewer, "aria-disabled", String(runs.length <= fewest));
      runs.forEach((ranks, q) => {
        const parts = rows[q];
        parts.cells.forEach((cell, i) => {
          const on = ranks.includes(i + 1);
          cell.classList.toggle("on", on);
          setText(cell, on ? "✓" : "");
        });
        const where = ranks.length ? `rank ${ranks.join(", ")}` : "no rank";
        const label = `${NAMES[system]}, query ${q + 1}: relevant at ${where}. ${symbol} ${r.rowText[q]}${r.lowest[q] ? ", the lowest" : ""}.`;
        setAttr(parts.strip, "aria-label", label);
        parts.bar.style.width = `${100 * r.values[q]}%`;
        parts.meanMark.style.left = `${100 * r.mean}%`;
        parts.medianMark.style.left = `${100 * r.median}%`;
        setText(parts.value, r.rowText[q]);
        parts.row.classList.toggle("is-lowest", r.lowest[q]);
      });
      setText(lines.lowest, r.lowestText);
      lines.lowest.hidden = !r.lowestText;
      setText(trackHead, symbol);
      const label = `${r.meanText.split(" = ")[0]} of ${NAMES[system]}`;
      return {
        said: `${NAMES[system]}: ${r.meanText.split(" = ")[0]} ${f(r.mean)}, median ${f(r.median)}`,
        target: { key: system, label, value: r.mean, el: box, hide: [lines.mean, lines.median, lines.lowest] },
      };
    },
  };
}

function build(shell) {
  const { model } = shell;
  const presets = [
    ["three", "Three queries"],
    ["consistency", "Consistency: A against B"],
  ].map(([name, label]) => {
    const button = h("button", "fig-button", label);
    button.type = "button";
    button.addEventListener("click", () => shell.commit({ ...shell.state(), ...structuredClone(model.presets[name]) }));
    return button;
  });
  const switcher = createRadioGroup(
    "Measure",
    "measure",
    [
      ["rr", "reciprocal rank (MRR)"],
      ["ap", "average precision (MAP)"],
    ],
    (measure) => shell.commit({ ...shell.state(), measure }),
  );
  shell.controls(switcher.el);
  shell.tools(...presets);
  const deepest = Math.max(shell.limits.a.max_rank, shell.limits.b.max_rank);
  const hint = h("p", "fig-hint-line");
  hint.append(
    ...byPointer(
      "Click a square to mark that rank relevant or not; drag a relevant square along its row to move it. Keyboard: Tab to a row, arrows to move, Enter or Space to mark.",
      `Tap a square to mark that rank relevant or not; swipe a row of squares sideways for the ranks up to ${deepest}.`,
    ),
  );
  const systemsBox = h("div", "systems");
  // Two systems side by side, or one under the other on a narrow screen: say which.
  const layout = h("p", "q-layout");
  layout.append(
    h("span", "q-layout-wide", "System A on the left, system B on the right: each query on the same line in both."),
    h("span", "q-layout-narrow", "System A first, system B under it: the same queries, in the same order."),
  );
  // AP divides by every relevant document of a query: here, only those marked in the strip.
  const assumption = h("p", "q-layout");
  shell.root.append(shell.head, shell.notice, hint, layout, assumption, systemsBox);
  const panels = {};

  return function update(state) {
    switcher.set(state.measure);
    layout.hidden = state.b.length === 0;
    const deepest = shell.limits.a.max_rank;
    assumption.textContent = `AP here divides by the relevant documents marked: it assumes none lies below rank ${deepest}.`;
    assumption.hidden = state.measure !== "ap";
    const said = [];
    for (const system of SYSTEMS) {
      if (!state[system].length && system !== "a") {
        panels[system]?.box.remove();
        delete panels[system];
        continue;
      }
      if (!panels[system]) {
        panels[system] = createSystemPanel(shell, system);
        systemsBox.append(panels[system].box);
      }
      said.push(panels[system].update(state));
    }
    shell.predict(said.map((s) => s.target), { after: systemsBox });
    shell.say(said.map((s) => s.said).join(". "));
  };
}
