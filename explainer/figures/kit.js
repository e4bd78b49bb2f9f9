// The pieces every figure shares: the figure shell (frame, header, Reset, presenter toggle, URL
// notice, announcer, and the binding of the state to its model and the URL), the ranked list
// with its cutoff marker, the graded list figure 2 and the conventions figure share, and the
// URL query parsers.
//
// The ranked list: rows are buttons (click, Enter or Space activates one); the marker sits between
// rows, is dragged with the pointer or moved with the keyboard, and snaps to the
// boundaries 1..count. The figure fills each row and decides what activation does.
import { dcgAtK, discount, formatNumber, gainValue } from "explainer/metrics";
import { createClassAddress } from "explainer/class-address";
import { createChartButton, createPictureButtons, pictureName } from "explainer/picture";
import { createPredict } from "explainer/predict";

/** Make an element with a class and optional text. */
export function h(tag, className = "", text = null) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== null) node.textContent = text;
  return node;
}

let ids = 0;

/**
 * A hidden element that describes `target` to a screen reader (aria-describedby): a control's
 * name is its visible text, so that speech input finds it by what it shows; what the text does
 * not say (what a press does, the arithmetic of a row) goes here.
 */
export function describedBy(target) {
  const description = h("span", "fig-description");
  description.hidden = true;
  description.id = `fig-description-${(ids += 1)}`;
  target.setAttribute("aria-describedby", description.id);
  return description;
}

/** A mark: a symbol that only the eye needs, then its words, as "✓ relevant". */
export function drawMark(node, symbol, words) {
  const [icon, text] = node.childNodes;
  if (node.childNodes.length === 2 && text.nodeType === Node.TEXT_NODE && icon.getAttribute?.("aria-hidden") === "true") {
    // Drawn before: a click rewrites the two texts and makes no nodes.
    setText(icon, symbol);
    if (text.data !== ` ${words}`) text.data = ` ${words}`;
    return;
  }
  const made = h("span", "", symbol);
  made.setAttribute("aria-hidden", "true");
  node.replaceChildren(made, ` ${words}`);
}

// A click changes a few of the many values a figure shows. Writing only those spares the
// browser the style and layout work of every rewritten node, and the page's readers a
// mutation for each value that stayed.

/**
 * Set a node's text, if it differs. A node that holds one text node keeps it and changes its data:
 * reading it costs no walk of the node's children and no new string, and writing it makes no node
 * (an empty text goes the long way, so that :empty still matches).
 */
export function setText(node, text) {
  const only = node.firstChild;
  if (only !== null && only === node.lastChild && only.nodeType === Node.TEXT_NODE && text !== "") {
    if (only.data !== text) only.data = text;
  } else if (node.textContent !== text) {
    node.textContent = text;
  }
}

/** Set an attribute, if it differs. */
export function setAttr(node, name, value) {
  if (node.getAttribute(name) !== value) node.setAttribute(name, value);
}

/**
 * Build the list. Options:
 *   count        number of rows
 *   label        accessible name of the list
 *   cutoffName   what the marker is called for a screen reader ("Cutoff k")
 *   maxK         the largest k (default: count); a k past the last row puts the marker under it
 *   buildRow(row, button, rank)   fill a row once; `button` is its activation target
 *   onActivate(rank)              a row was clicked or pressed
 *   onCutoff(k)                   the marker was moved to k
 * Returns { el, rows, buttons, update(k), highlight(ranks) }.
 */
export function createRankedList({ count, label, cutoffName = "Cutoff k", maxK = count, buildRow, onActivate, onCutoff }) {
  const el = h("div", "rl");
  const list = h("div", "rl-rows");
  list.setAttribute("role", "list");
  list.setAttribute("aria-label", label);
  const rows = [];
  const buttons = [];
  const descriptions = [];
  for (let rank = 1; rank <= count; rank++) {
    const row = h("div", "rl-row");
    row.setAttribute("role", "listitem");
    row.dataset.rank = String(rank);
    const button = h("button", "rl-activate");
    button.type = "button";
    button.addEventListener("click", () => onActivate(rank));
    const description = describedBy(button);
    row.append(button, description);
    buildRow(row, button, rank);
    rows.push(row);
    buttons.push(button);
    descriptions.push(description);
    list.append(row);
  }

  const marker = h("div", "rl-cutoff");
  marker.tabIndex = 0;
  marker.setAttribute("role", "slider");
  marker.setAttribute("aria-label", cutoffName);
  marker.setAttribute("aria-orientation", "vertical");
  marker.setAttribute("aria-valuemin", "1");
  marker.setAttribute("aria-valuemax", String(maxK));
  const line = h("span", "rl-cutoff-line");
  const handle = h("span", "rl-cutoff-handle");
  marker.append(line, handle);
  const gutter = h("div", "rl-gutter");
  gutter.setAttribute("aria-hidden", "true");
  el.append(gutter, list);
  // Room under the last row for a k past it (trec_eval's cut at 10 of a shorter list).
  if (maxK > count) el.style.paddingBottom = `calc(1em + ${(maxK - count) * PAST_LIST_PX}px)`;

  let k = 0; // none shown until the first update

  // Row offsets are measured from `el`, the positioned container of rows and marker.
  function boundary(j) {
    if (j > count) return boundary(count) + (j - count) * PAST_LIST_PX;
    const row = rows[j - 1];
    const next = rows[j];
    const bottom = row.offsetTop + row.offsetHeight;
    return next ? (bottom + next.offsetTop) / 2 : bottom + 3;
  }

  let top = null; // the marker's place, as last written
  const placer = {
    measure: () => (k ? boundary(k) : null),
    move(at) {
      if (at === null || at === top) return;
      top = at;
      marker.style.top = `${at}px`;
    },
  };

  function nearest(clientY) {
    const y = clientY - el.getBoundingClientRect().top;
    let best = 1;
    for (let j = 2; j <= maxK; j++) {
      if (Math.abs(boundary(j) - y) < Math.abs(boundary(best) - y)) best = j;
    }
    return best;
  }

  function move(to) {
    const next = Math.max(1, Math.min(maxK, to));
    if (next !== k) onCutoff(next);
  }

  // Pointer: drag the marker, or press anywhere in the gutter to bring it there.
  // On a touch screen only the marker itself is dragged: a swipe that starts beside the list (in
  // the gutter) or on a row scrolls the page, as a swipe should.
  for (const target of [marker, gutter]) {
    target.addEventListener("pointerdown", (event) => {
      if (event.button !== 0 || (target === gutter && event.pointerType === "touch")) return;
      event.preventDefault();
      marker.focus({ preventScroll: true });
      marker.setPointerCapture(event.pointerId);
      marker.classList.add("rl-dragging");
      move(nearest(event.clientY));
    });
  }
  // Dragged to the top or bottom edge of the window, the marker scrolls the page along (a phone
  // shows only part of a long list), faster the nearer the edge, until it is released.
  let pointerY = 0;
  let scrolling = 0;
  const scrollAlong = () => {
    const speed = edgeSpeed(pointerY, window.innerHeight);
    if (!speed || !marker.classList.contains("rl-dragging")) {
      scrolling = 0;
      return;
    }
    window.scrollBy(0, speed);
    move(nearest(pointerY));
    scrolling = requestAnimationFrame(scrollAlong);
  };
  marker.addEventListener("pointermove", (event) => {
    if (!marker.hasPointerCapture(event.pointerId)) return;
    pointerY = event.clientY;
    move(nearest(pointerY));
    if (!scrolling) scrolling = requestAnimationFrame(scrollAlong);
  });
  const release = (event) => {
    if (marker.hasPointerCapture(event.pointerId)) marker.releasePointerCapture(event.pointerId);
    marker.classList.remove("rl-dragging");
    followCutoff();
  };
  marker.addEventListener("pointerup", release);
  marker.addEventListener("pointercancel", release);

  const keySteps = {
    ArrowUp: () => k - 1,
    ArrowLeft: () => k - 1,
    ArrowDown: () => k + 1,
    ArrowRight: () => k + 1,
    PageUp: () => k - 3,
    PageDown: () => k + 3,
    Home: () => 1,
    End: () => maxK,
  };
  marker.addEventListener("keydown", (event) => {
    const step = keySteps[event.key];
    if (!step) return;
    event.preventDefault();
    move(step());
  });

  // In the tab order the marker comes right after the rows it cuts: it lives in row k's list item
  // (it is positioned against the whole list, so where it lives does not move it on screen). Not
  // while it is dragged: taking it out of the document would end the drag.
  function followCutoff() {
    const host = rows[Math.min(k, count) - 1];
    if (!host || marker.parentNode === host || marker.classList.contains("rl-dragging")) return;
    const hadFocus = marker.getRootNode().activeElement === marker;
    host.append(marker);
    if (hadFocus) marker.focus({ preventScroll: true });
  }

  // The marker sits between two rows: placed again when k changes, and when a row's height does
  // (a title wraps on a narrow screen, a font loads), which moves every row below it.
  observeRows(rows, placer);
  // Placing the marker reads the rows' layout; doing it in the next frame, not in the click
  // handler that just changed the rows, spares the browser a second, forced layout per click.
  const placeSoon = () => placeInNextFrame(placer);

  return {
    el,
    rows,
    buttons,
    /** Say more of the row at `rank` (1-based) to a screen reader than its text shows: its description. */
    describe(rank, text) {
      setText(descriptions[rank - 1], text);
    },
    /** Show the cutoff at k: the marker's place, its label, and which rows fall below it. */
    update(nextK) {
      if (nextK === k) return;
      k = nextK;
      handle.textContent = `k = ${k}`;
      marker.setAttribute("aria-valuenow", String(k));
      const past = k > count ? `, past the list's ${count}` : "";
      marker.setAttribute("aria-valuetext", `k = ${k}: ${k === 1 ? "the top result counts" : `the top ${k} results count${past}`}`);
      rows.forEach((row, i) => row.classList.toggle("rl-below", i >= k));
      followCutoff();
      placeSoon();
    },
    /** Mark the rows at these ranks (1-based) as the ones a hovered measure uses. */
    highlight(ranks) {
      const chosen = new Set(ranks);
      rows.forEach((row, i) => row.classList.toggle("rl-highlight", chosen.has(i + 1)));
      el.classList.toggle("rl-highlighting", chosen.size > 0);
    },
  };
}

// Every list's marker is placed by one resize observer and one frame callback, which measure every
// marker they place before moving any. With an observer and a callback per list, a page of seven
// figures forced a layout per list in its first frame: each list read the rows' layout that the
// list before it had just invalidated by moving its marker.
let rowsResized = null; // made at the first list: kit.js is also imported where there is no DOM
const placerOfRow = new WeakMap();
const placeNext = new Set();
let placeFrame = 0;

/** Measure where each of `placers`' markers goes, then move them: reads first, writes after. */
function placeMarkers(placers) {
  const tops = [...placers].map((placer) => [placer, placer.measure()]);
  for (const [placer, at] of tops) placer.move(at);
}

function observeRows(rows, placer) {
  // Rows are never unobserved: a row taken out of the page and put back (a notebook's cell scrolled
  // away and back) places its marker again when its size changes. A figure drawn anew (its tag
  // renamed) leaves its old rows observed and alive: a small cost, for a rare change.
  rowsResized ??= new ResizeObserver((entries) => placeMarkers(new Set(entries.map((entry) => placerOfRow.get(entry.target)))));
  for (const row of rows) {
    placerOfRow.set(row, placer);
    rowsResized.observe(row);
  }
}

function placeInNextFrame(placer) {
  placeNext.add(placer);
  placeFrame ||= requestAnimationFrame(() => {
    placeFrame = 0;
    const placers = [...placeNext];
    placeNext.clear();
    placeMarkers(placers);
  });
}

const EDGE_PX = 48;
// How far below the last row the marker goes for each k past it.
const PAST_LIST_PX = 14;

/** How far to scroll per frame for a pointer at `y` in a window `height` tall: none away from its edges. */
export function edgeSpeed(y, height) {
  if (y < EDGE_PX) return -Math.ceil((EDGE_PX - Math.max(y, 0)) / 3);
  if (y > height - EDGE_PX) return Math.ceil((Math.min(y, height) - (height - EDGE_PX)) / 3);
  return 0;
}

/**
 * A function that calls `run` with the last value it was given, once `delay` ms have passed
 * without another: a debounce with one timer per quiet spell, which it re-arms for the time left,
 * instead of clearing a timer and setting a new one on every call (a click's two debounces cost
 * more than its arithmetic).
 */
export function settled(delay, run) {
  let timer = 0;
  let due = 0;
  let latest;
  const fire = () => {
    const left = due - performance.now();
    if (left > 0) {
      timer = setTimeout(fire, left);
      return;
    }
    timer = 0;
    run(latest);
  };
  return (value) => {
    latest = value;
    due = performance.now() + delay;
    if (!timer) timer = setTimeout(fire, delay);
  };
}

/** A polite live region that reads out the numbers once changes settle. */
export function createAnnouncer(delay = 500) {
  const el = h("div", "sr-only");
  el.setAttribute("aria-live", "polite");
  el.setAttribute("role", "status");
  return {
    el,
    say: settled(delay, (text) => {
      el.textContent = text;
    }),
  };
}

/**
 * Bind a figure to its model's `state`: `apply(state)` redraws the figure. Returns
 * `commit(next)`, which redraws at once and then sends `next` to Python; echoes of
 * what was just sent are not drawn twice.
 */
export function bindState(model, apply) {
  let sent = JSON.stringify(model.state);
  model.on("state", () => {
    const incoming = JSON.stringify(model.state);
    if (incoming === sent) return;
    sent = incoming;
    apply(model.state);
  });
  apply(model.state);
  return (next) => {
    sent = JSON.stringify(next);
    apply(next);
    model.state = next;
  };
}

// -- state in the page URL: shareable links, the same on the server and from a saved file --

/** A query value that was ignored, and why, for the figure's notice. */
export class Ignored extends Error {}

const MAX_SHOWN = 40;

/** Quote what the reader typed, shortened (never inside a character); it is only ever set as text, never as markup. */
export function quoted(text) {
  const characters = Array.from(text);
  const short = characters.length > MAX_SHOWN ? `${characters.slice(0, MAX_SHOWN).join("")}…` : text;
  return `“${short}”`;
}

// A query longer than the model's `max_query_length` is ignored whole: no figure's state needs a
// tenth of it. A served page turns such a query away before it makes a session, redirecting to
// `#ignored-query=<length>`.
const tooLong = (length, maxLength) =>
  `Ignored the whole query: it is ${length.toLocaleString("en")} characters long, ` +
  `and no figure's settings take more than ${maxLength.toLocaleString("en")}.`;

/** A whole number from lo to hi, or Ignored with a reason. */
export function parseInteger(text, name, lo, hi) {
  const value = /^\s*\d{1,6}\s*$/.test(text) ? Number(text) : NaN;
  if (!Number.isInteger(value) || value < lo || value > hi) {
    throw new Ignored(`${name} must be a whole number from ${lo} to ${hi}`);
  }
  return value;
}

/** A comma-separated list of whole numbers from lo to hi (empty text is an empty list). */
export function parseIntegers(text, name, lo, hi, what = `whole numbers from ${lo} to ${hi}`) {
  if (text.trim() === "") return [];
  const parts = text.split(",");
  if (parts.length > 64) throw new Ignored(`${name} must list ${what}, separated by commas`);
  return parts.map((part) => {
    try {
      return parseInteger(part, name, lo, hi);
    } catch {
      throw new Ignored(`${name} must list ${what}, separated by commas`);
    }
  });
}

/** One of `options`, as typed, or Ignored naming them. */
export function parseChoice(text, name, options) {
  if (!options.includes(text)) throw new Ignored(`${name} must be ${options.slice(0, -1).join(", ")} or ${options.at(-1)}`);
  return text;
}

/** Comma-separated ranks 1..length as one flag per rank, rank 1 first (empty text: none flagged). */
export function parseRankFlags(text, name, length) {
  const ranks = parseIntegers(text, name, 1, length, `ranks from 1 to ${length}`);
  return Array.from({ length }, (_, i) => ranks.includes(i + 1));
}

/** The ranks (1-based) whose flag is set, comma-separated: the URL form of a list of flags. */
export function flaggedRanks(flags, wanted = true) {
  return flags.flatMap((flag, i) => (flag === wanted ? [i + 1] : [])).join(",");
}

/** Exactly `length` comma-separated grades from `min` to `max`, in the order written. */
export function parseGradeList(text, name, { length, min_grade: min, max_grade: max }) {
  const what = `exactly ${length} grades from ${min} to ${max}`;
  const grades = parseIntegers(text, name, min, max, what);
  if (grades.length !== length) throw new Ignored(`${name} must list ${what}, separated by commas`);
  return grades;
}

// Keys the page itself uses, and the values each takes: left alone by every figure's state.
export const PAGE_KEYS = { present: ["0", "1"], theme: ["light", "dark", "auto"], embed: ["0", "1"], predict: ["0", "1"] };

/** The page keys of a URL query that are set to a value they do not take, as notice lines. */
export function ignoredPageKeys(search) {
  const params = new URLSearchParams(search);
  return Object.entries(PAGE_KEYS).flatMap(([key, values]) => {
    const text = params.getAll(key).at(-1);
    if (text === undefined || values.includes(text)) return [];
    return [`Ignored ${key}=${quoted(text)}: ${key} must be ${values.slice(0, -1).join(", ")} or ${values.at(-1)}.`];
  });
}

/**
 * Light or dark for the whole page, as its URL's theme key asks (auto, or no key: the system's
 * setting). The stylesheets read --explainer-theme for their color-scheme.
 */
export function applyPageTheme(search) {
  const theme = new URLSearchParams(search).get("theme");
  const root = document.documentElement.style;
  if (theme === "light" || theme === "dark") root.setProperty("--explainer-theme", theme);
  else if (theme === "auto") root.removeProperty("--explainer-theme");
}

/**
 * Read a figure's state from the URL query. `fields` maps each key to a function
 * (text, state) => new state, which throws Ignored for a bad value; they apply in
 * the order `fields` lists them, whatever the order in the URL. Returns the state
 * with every valid value applied, and a sentence for each ignored one; a query
 * longer than `maxLength` is ignored whole.
 */
export function stateFromQuery(search, fields, base, maxLength) {
  let state = structuredClone(base);
  const length = search.replace(/^\?/, "").length;
  if (length > maxLength) return { state, ignored: [tooLong(length, maxLength)] };
  const ignored = [];
  const params = new URLSearchParams(search);
  for (const key of new Set(params.keys())) {
    if (!Object.hasOwn(PAGE_KEYS, key) && !Object.hasOwn(fields, key)) {
      ignored.push(`Ignored ${quoted(key)}: this figure has no such setting.`);
    }
  }
  for (const [key, field] of Object.entries(fields)) {
    if (!params.has(key)) continue;
    const text = params.getAll(key).at(-1);
    try {
      state = field(text, state);
    } catch (error) {
      if (!(error instanceof Ignored)) throw error;
      ignored.push(`Ignored ${key}=${quoted(text)}: ${error.message}.`);
    }
  }
  return { state, ignored };
}


/** A query string with commas, bars and question marks left as they are typed, so a link stays readable. */
export function queryText(params) {
  return params.toString().replace(/%2C/g, ",").replace(/%7C/g, "|").replace(/%3F/g, "?");
}

/** Put the state into the page URL (replacing, not adding, a history entry), keeping the page's own keys. */
export const writeQuery = settled(120, (pairs) => {
  const params = new URLSearchParams(window.location.search);
  for (const key of [...params.keys()]) if (!Object.hasOwn(PAGE_KEYS, key)) params.delete(key);
  for (const [key, value] of pairs) params.set(key, value);
  const query = queryText(params);
  const url = `${window.location.pathname}${query ? `?${query}` : ""}${window.location.hash}`;
  try {
    window.history.replaceState(window.history.state, "", url);
  } catch {
    // Some hosts (sandboxed frames, odd file: origins) forbid it; the figure works on without.
  }
});

/** The state a figure page's own URL asks for: its query, or the notice for one the server turned away. */
function stateFromPage(fields, base, maxLength) {
  const turnedAway = /^#ignored-query=(\d{1,9})$/.exec(window.location.hash);
  if (!turnedAway) return stateFromQuery(window.location.search, fields, base, maxLength);
  try {
    // The fragment has said what it had to; the address becomes a plain link again.
    window.history.replaceState(window.history.state, "", window.location.pathname + window.location.search);
  } catch {
    // A sandboxed frame may forbid it; the notice shows all the same.
  }
  return { state: structuredClone(base), ignored: [tooLong(Number(turnedAway[1]), maxLength)] };
}

const MAX_NOTICE_LINES = 5;

/** A polite notice listing the values the URL asked for that the figure ignored (the first few of many). */
export function createQueryNotice() {
  const el = h("div", "fig-notice query-notice");
  el.setAttribute("role", "status");
  el.hidden = true;
  return {
    el,
    show(lines) {
      const shown = lines.length > MAX_NOTICE_LINES ? lines.slice(0, MAX_NOTICE_LINES - 1) : lines;
      const more = lines.length - shown.length;
      el.replaceChildren(...shown.map((line) => h("p", "", line)));
      if (more) el.append(h("p", "", `… and ${more} more values ignored.`));
      el.hidden = lines.length === 0;
    },
  };
}

// -- presenter mode: large type, high contrast, nothing but the figure --

/** Write a page key's "1" into the page URL (present=1, predict=1), or take the key away, keeping the rest. */
function setPageKey(key, on) {
  const params = new URLSearchParams(window.location.search);
  if (on) params.set(key, "1");
  else params.delete(key);
  const query = queryText(params);
  try {
    window.history.replaceState(window.history.state, "", `${window.location.pathname}${query ? `?${query}` : ""}`);
  } catch {
    // As in writeQuery: the mode still switches.
  }
}

/** A toggle for presenter mode, on when the URL says present=1. It marks the figure root and the page. */
export function createPresenterToggle(root) {
  const button = h("button", "fig-button present-toggle", "Presenter view");
  button.type = "button";
  const set = (on) => {
    root.classList.toggle("present", on);
    // The page gives the figure the whole width of the screen (page.css reads this).
    if (on) document.documentElement.style.setProperty("--explainer-page-width", "100%");
    else document.documentElement.style.removeProperty("--explainer-page-width");
    button.setAttribute("aria-pressed", String(on));
  };
  button.addEventListener("click", () => {
    const on = !root.classList.contains("present");
    set(on);
    setPageKey("present", on);
  });
  set(new URLSearchParams(window.location.search).get("present") === "1");
  return button;
}

// -- the figure shell: what every figure has around its own parts --

/** A line that says, for a moment, why a press did nothing. */
export function createFlash() {
  const el = h("p", "fig-hint");
  el.setAttribute("role", "status");
  let timer = null;
  return {
    el,
    flash(text) {
      el.textContent = text;
      clearTimeout(timer);
      timer = setTimeout(() => (el.textContent = ""), 2500);
    },
  };
}

/**
 * Mount a figure in `el`: its frame and caption, a header (the query, the figure's controls, its
 * tools, Reset and, on a page of its own, the presenter toggle), the notice of URL values it
 * ignored, a live region for screen readers, and the binding of its state to the model (and on
 * a page of its own, to the URL). `figure` gives what is the figure's own:
 *   className               the root's class, as "fig-binary"
 *   queryFields(model)      the URL keys: { key: (text, state) => next state, throwing Ignored }
 *   toQuery(state, model)   the [key, value] pairs the URL shows for a state
 *   reset                   optional { label, title, to(state) }; by default Reset returns to model.default
 *   build(shell)            builds the figure's parts and returns update(state), which redraws them,
 *                           or { update, onReset } when Reset must also stop something
 * `build` receives the shell: { model, limits, frame, root, head, notice, controls(...nodes),
 * tools(...nodes), state(), commit(next), say(text), predict(targets, options), predicting(on),
 * beforePaint(draw) }; the figure places `head` and `notice`, names its headline values to predict.js's
 * mode with predict(), and hands what is not a number a reader reads (its charts) to beforePaint(), which
 * draws it in the next animation frame, before that frame paints (the last `draw` given, once).
 * Once mounted, the shell also has `ask(search)`, and `el` receives a "figure-mounted" event
 * carrying it: a host that is not a page URL (the <relevance-figure> tag, explainer.js) hands
 * the figure its query that way.
 */
export function mountFigure({ model, el }, figure) {
  const frame = h("div", "fig-frame");
  const root = h("div", `fig ${figure.className}`);
  frame.append(root);
  const embedded = model.standalone && isEmbedded(window.location.search);
  if (model.heading && !embedded) {
    // The cards' names are h3, as under a story section's h2: on a page of its own, the figure
    // is that section.
    root.append(h("h1", "fig-heading", model.heading), h("h2", "sr-only", "The figure and its numbers"));
  }
  if (model.caption) root.append(h("p", "fig-caption", model.caption));
  el.append(frame);
  // In JupyterLab the figure takes the notebook's theme, light or dark, whatever the system's.
  const jupyterLight = document.body?.dataset.jpThemeLight;
  if (jupyterLight) frame.style.colorScheme = jupyterLight === "true" ? "light" : "dark";

  const head = h("div", "fig-head");
  if (model.query) {
    const query = h("p", "fig-query");
    query.append("Query: ", h("q", "", model.query));
    head.append(query);
  }
  const tools = h("div", "fig-tools");
  // Reset goes back to the state the figure opened in (a teacher's link); where that is not the
  // article's example, a second button goes back to the example. A figure may reset otherwise.
  const { label = "Reset", title = "Back to the state this page opened with", to = () => structuredClone(opened) } =
    figure.reset ?? {};
  const reset = h("button", "fig-button fig-reset", label);
  reset.type = "button";
  reset.title = title;
  const example = h("button", "fig-button fig-example", "Example");
  example.type = "button";
  example.title = "Back to the article's example";
  example.hidden = true;
  tools.append(reset, example);
  const notice = createQueryNotice();
  const announcer = createAnnouncer();
  const headline = createHeadline(root);
  // Predict, then reveal (predict.js): asked by the tag's predict attribute or the page's predict=1.
  const asked = model.predict || (model.standalone && new URLSearchParams(window.location.search).get("predict") === "1");
  const onSwitch = (on) => model.standalone && setPageKey("predict", on);
  const predict = createPredict({ frame, announce: announcer.say, headline: headline.show, on: asked, onSwitch });
  if (model.standalone || model.predict) tools.append(predict.button);
  // A picture for slides, on the explainer's own pages (not in an embed or a documentation's tag,
  // whose explainer.js carries no picture code: runtime.py).
  const pictures = createPictureButtons !== undefined && ((model.standalone && !embedded) || model.on_page);
  const pictured = () => pictureName(figure.className, figure.toQuery(state, model));
  if (pictures) tools.append(createPictureButtons(frame, pictured));
  if (model.standalone && !embedded) tools.append(createPresenterToggle(frame));
  // Served for a class (--address): presenter view can show the address as a QR code.
  if (model.standalone && !embedded && model.class_address) {
    tools.append(createClassAddress(frame, model.class_address, model.class_address_qr));
  }
  head.append(tools);
  frame.prepend(headline.el); // outside the grid, so that it can stay in view over the whole figure

  let state;
  let opened = null; // the state the figure opened in, after its link's values
  let commit = null;
  // What can wait for the frame: a figure's charts, and the URL and page links, are drawn in one
  // animation-frame callback, which runs before the frame that paints the change; the numbers a
  // reader reads are written in the click itself. Several changes in one frame draw the last state
  // once. Until the figure is mounted everything is drawn at once, so that it opens complete.
  let drawNow = true;
  const later = { figure: null, shell: null };
  let laterFrame = 0;
  const flush = () => {
    cancelAnimationFrame(laterFrame);
    laterFrame = 0;
    const { figure: drawFigure, shell: drawShell } = later;
    later.figure = later.shell = null;
    drawFigure?.();
    drawShell?.();
  };
  const beforePaint = (slot, draw) => {
    later[slot] = draw;
    if (drawNow) flush();
    else laterFrame ||= requestAnimationFrame(flush);
  };
  const shell = {
    model,
    limits: model.limits,
    frame,
    root,
    head,
    notice: notice.el,
    controls: (...nodes) => tools.before(...nodes),
    tools: (...nodes) => reset.before(...nodes),
    state: () => state,
    commit: (next) => commit(next),
    say: predict.say,
    predict: predict.targets,
    predicting: predict.set,
    beforePaint: (draw) => beforePaint("figure", draw),
  };
  const built = figure.build(shell);
  // Each chart (chart.js) can be saved alone, for a slide of its own.
  if (pictures) for (const chart of root.querySelectorAll(".kchart")) chart.append(createChartButton(chart, frame, pictured));
  const { update, onReset = () => {} } = typeof built === "function" ? { update: built } : built;
  root.append(announcer.el);

  let heightChanged = () => {};
  const links = model.page_link ? createPageLinks(root, model.page_link) : null;
  commit = bindState(model, (next) => {
    state = next;
    predict.follow(next);
    update(next);
    beforePaint("shell", () => {
      if (model.standalone) writeQuery(figure.toQuery(state, model));
      links?.update(figure.toQuery(state, model));
      heightChanged();
    });
  });
  const show = (asked, notes = []) => {
    notice.show([...asked.ignored, ...notes]);
    if (JSON.stringify(asked.state) !== JSON.stringify(state)) commit(asked.state);
  };
  if (model.standalone || model.on_page) applyPageTheme(window.location.search);
  if (model.standalone) {
    show(stateFromPage(figure.queryFields(model), model.state, model.max_query_length), ignoredPageKeys(window.location.search));
  }
  opened = structuredClone(state);
  example.hidden = figure.reset?.to !== undefined || JSON.stringify(opened) === JSON.stringify(model.default);
  reset.addEventListener("click", () => {
    onReset();
    commit(to(state));
  });
  example.addEventListener("click", () => {
    onReset();
    commit(structuredClone(model.default));
  });
  if (embedded) heightChanged = reportHeight(frame);
  /**
   * Show the state a query asks for, from the article's example, with the same notices as a
   * link's (and `notes`). It becomes the state the figure opened with, which Reset returns to,
   * unless `opens` is false (the same state asked again, as for a new theme).
   */
  shell.ask = (search, notes = [], opens = true) => {
    show(stateFromQuery(search, figure.queryFields(model), model.default, model.max_query_length), notes);
    if (opens) opened = structuredClone(state);
    example.hidden = figure.reset?.to !== undefined || JSON.stringify(opened) === JSON.stringify(model.default);
  };
  drawNow = false;
  el.dispatchEvent(new CustomEvent("figure-mounted", { detail: shell }));
  return shell;
}

/**
 * On a narrow screen the numbers sit under the list: a bar of the headline numbers stays at the
 * top of the screen while the reader taps rows or moves k below it, and opens to the whole
 * arithmetic (the figure's formulas). Hidden on wide screens, where the numbers are beside the list.
 */
function createHeadline(root) {
  const el = h("div", "fig-headline");
  el.setAttribute("aria-hidden", "true"); // the live region already says these numbers
  const summary = h("p", "fig-headline-text");
  const toggle = h("button", "fig-button fig-headline-toggle", "Arithmetic");
  toggle.type = "button";
  toggle.tabIndex = -1;
  toggle.setAttribute("aria-expanded", "false");
  const details = h("div", "fig-headline-details");
  details.hidden = true;
  el.append(summary, toggle, details);
  const drawDetails = () => {
    // Only what shows: in predict mode the hidden formulas stay hidden here too.
    const formulas = [...root.querySelectorAll(".metric-formula")].filter((node) => node.checkVisibility()).map((node) => node.textContent);
    details.replaceChildren(...formulas.map((text) => h("p", "", text)));
  };
  toggle.addEventListener("click", () => {
    details.hidden = !details.hidden;
    toggle.setAttribute("aria-expanded", String(!details.hidden));
    if (!details.hidden) drawDetails();
  });
  return {
    el,
    show(text) {
      setText(summary, text);
      if (!details.hidden) drawDetails();
    },
  };
}

/**
 * On the story page: links to the figure's own page and its presenter view, carrying the state
 * the reader has brought the figure to.
 */
function createPageLinks(root, pageLink) {
  const el = h("p", "figure-links");
  const own = h("a", "", "This figure on its own page");
  const present = h("a", "", "Presenter view");
  el.append(own, " · ", present);
  root.append(el);
  return {
    update(pairs) {
      const query = queryText(new URLSearchParams(pairs));
      own.href = `${pageLink}?${query}`;
      present.href = `${pageLink}?${query}&present=1`;
    },
  };
}

/** Whether a figure page is embedded in another page: its link says embed=1, or it is in a frame (unless embed=0). */
function isEmbedded(search) {
  const embed = new URLSearchParams(search).get("embed");
  return embed === "1" || (embed !== "0" && window.self !== window.top);
}

/**
 * Tell the page that frames this one how tall the figure is, whenever that changes, so that the
 * iframe can be sized to it (the README's snippet listens for the message). Returns the function
 * to call after the figure redraws.
 */
function reportHeight(frame) {
  // The page around the figure keeps no room of its own (page.css reads these).
  document.documentElement.style.setProperty("--explainer-page-top", "0");
  document.documentElement.style.setProperty("--explainer-page-bottom", "0");
  let sent = 0;
  const send = () => {
    const height = Math.ceil(frame.getBoundingClientRect().bottom + window.scrollY + EMBED_MARGIN_PX);
    if (height !== sent) window.parent.postMessage({ type: "relevance-explainer:height", height }, "*");
    sent = height;
  };
  // A resize observer runs only while the frame is painted, and a browser does not paint a frame
  // that is off the screen: a timer measures it there too, at first and after each change.
  new ResizeObserver(send).observe(frame);
  let timer = setTimeout(send, 0);
  return () => {
    clearTimeout(timer);
    timer = setTimeout(send, 50);
  };
}

// Room below an embedded figure: its focus outlines and shadows stay inside the frame.
const EMBED_MARGIN_PX = 8;

/**
 * A measure's card: its name, its formula with the numbers filled in, and with `note`, a line
 * under it; `blind` adds what the measure is blind to. `metric` names it for the page
 * (data-metric). Returns { el, formula, note }.
 */
export function createCard(name, { metric = null, className = "", note = true, blind = null } = {}) {
  const el = h("section", `metric ${className}`.trim());
  if (metric) el.dataset.metric = metric;
  const parts = { el, formula: h("p", "metric-formula"), note: note ? h("p", "metric-note") : null };
  el.append(h("h3", "metric-name", name), parts.formula);
  if (parts.note) el.append(parts.note);
  if (blind) el.append(h("p", "metric-blind", blind));
  return parts;
}

/**
 * A count the reader steps with − and + buttons: `label` is its visible label (text or a node),
 * `names` the accessible names { less, more, value }, `onStep(by)` runs with -1 or +1.
 * Returns { el, set(value, { canLess, canMore }) }.
 */
export function createStepper(label, names, onStep) {
  const el = h("div", "stepper");
  const labelEl = h("span", "stepper-label");
  labelEl.append(label);
  const less = h("button", "fig-button", "−");
  const more = h("button", "fig-button", "+");
  less.type = more.type = "button";
  less.setAttribute("aria-label", names.less);
  more.setAttribute("aria-label", names.more);
  const value = h("output", "stepper-value");
  if (names.value) value.setAttribute("aria-label", names.value);
  el.append(labelEl, less, value, more);
  less.addEventListener("click", () => onStep(-1));
  more.addEventListener("click", () => onStep(1));
  return {
    el,
    set(count, { canLess, canMore }) {
      setText(value, String(count));
      // aria-disabled, not disabled: a disabled button would drop the keyboard focus.
      setAttr(less, "aria-disabled", String(!canLess));
      setAttr(more, "aria-disabled", String(!canMore));
    },
  };
}

/**
 * A labelled group of radio buttons. `options` is a list of [value, label]; `onChange(value)`
 * runs when the reader picks one. Returns { el, set(value) }.
 */
export function createRadioGroup(legend, name, options, onChange, className = "") {
  const el = h("fieldset", `gain-switch ${className}`.trim());
  el.append(h("legend", "", legend));
  const inputs = {};
  for (const [value, label] of options) {
    const option = h("label", "gain-option");
    const input = h("input");
    input.type = "radio";
    input.name = name;
    input.value = value;
    input.addEventListener("change", () => onChange(value));
    option.append(input, " ", label);
    inputs[value] = input;
    el.append(option);
  }
  return {
    el,
    set(value) {
      for (const [key, input] of Object.entries(inputs)) input.checked = key === value;
    },
  };
}

/** A menu of grades 0..maxGrade for one row; `onChange(grade)` runs when the reader picks one. */
export function createGradeSelect(maxGrade, label, onChange) {
  const select = h("select", "grade-select");
  select.setAttribute("aria-label", label);
  for (let g = 0; g <= maxGrade; g++) {
    const option = h("option", "", String(g));
    option.value = String(g);
    select.append(option);
  }
  select.addEventListener("change", () => onChange(Number(select.value)));
  return select;
}

// -- graded lists: figure 2, the conventions figure, the unjudged figure --

/** What each grade means, 0 first, for a screen reader. */
export const GRADE_WORDS = ["not relevant", "somewhat relevant", "relevant", "highly relevant"];

/** A grade drawn as filled and empty dots, then its number: "●●○ 2" on a 0-to-3 scale. */
export function gradeMark(grade, maxGrade) {
  return `${"●".repeat(grade)}${"○".repeat(maxGrade - grade)} ${grade}`;
}

/** Draw a grade's mark in `node`, the dots for the eye only: a screen reader hears the number. */
export function drawGrade(node, grade, maxGrade) {
  const text = gradeMark(grade, maxGrade);
  if (node.textContent !== text) drawMark(node, text.split(" ")[0], String(grade));
}

/** The grades of a state { grades (by document), order (documents by rank) } in rank order. */
export function rankedGrades(state) {
  return state.order.map((doc) => state.grades[doc]);
}

/** "g/d + g/d + ... = total": the DCG of the top `depth` grades written out, each gain over log2(rank + 1). */
export function dcgSum(grades, depth, gain) {
  const shown = grades.slice(0, depth).map((g, i) => `${gainValue(g, gain)}/${formatNumber(1 / discount(i + 1))}`);
  return `${shown.join(" + ")} = ${formatNumber(dcgAtK(grades, depth, gain))}`;
}

/** The running sums of a list of numbers. */
export function cumulative(terms) {
  let sum = 0;
  return terms.map((t) => (sum += t));
}

/**
 * A ranked list of graded results that the reader reorders and regrades (figure 2 and the
 * conventions figure), in the figure's shell, over state { grades (by document), order
 * (documents by rank), k }. Pressing a result moves it up one rank, the focus following it;
 * its menu sets its grade; the marker sets k. `titles` are the documents' titles; `columns`
 * are the [className, heading] pairs of the header row (which screen readers skip: each row
 * says it all); `cells(rank)` gives the spans a row shows after its rank, title and grade.
 * Returns { header, list (as createRankedList's), flash, draw(state, extra) }.
 */
export function createGradedList(shell, { titles, label, headerClass, columns, cells = () => [] }) {
  const { length: count, max_grade: maxGrade } = shell.limits.grades;
  const header = h("div", headerClass);
  header.setAttribute("aria-hidden", "true");
  for (const [cls, text] of columns) header.append(h("span", cls, text));
  const hint = createFlash();
  const gradeSelects = [];
  const list = createRankedList({
    count,
    label,
    maxK: shell.limits.k.max,
    buildRow(row, button, rank) {
      button.append(h("span", "rl-rank", String(rank)), h("span", "rl-title"), h("span", "grade"), ...cells(rank));
      const select = createGradeSelect(maxGrade, `Grade of the result at rank ${rank}`, (grade) => {
        const state = shell.state();
        const grades = state.grades.slice();
        grades[state.order[rank - 1]] = grade;
        shell.commit({ ...state, grades });
      });
      row.append(select);
      gradeSelects.push(select);
    },
    onActivate(rank) {
      if (rank === 1) {
        hint.flash("Rank 1 is already at the top.");
        return;
      }
      // Focus follows the moved result, at once, so that the next key press moves it again; only
      // for a reader whose focus was on it (a key, or a click that focused it): a script's click
      // moves no focus, and spares the browser the style work that focus asks for.
      const pressed = list.buttons[rank - 1];
      const hadFocus = pressed.getRootNode().activeElement === pressed;
      const state = shell.state();
      shell.commit({ ...state, order: promoted(state.order, rank) });
      if (hadFocus) list.buttons[rank - 2].focus({ preventScroll: true });
    },
    onCutoff(k) {
      shell.commit({ ...shell.state(), k });
    },
  });

  const drawn = []; // what each row shows, as last drawn
  return {
    header,
    list,
    flash: hint.flash,
    hint: hint.el,
    /**
     * Draw the rows of `state` and place k. `extra(i, grade)` gives what the figure adds to the
     * row at rank i + 1: { key, label, draw(button) }. A row is redrawn only when its document,
     * grade or `key` changed (a promote swaps two rows; the others stay as drawn).
     */
    draw(state, extra = () => ({})) {
      list.update(state.k);
      state.order.forEach((doc, i) => {
        const grade = state.grades[doc];
        const more = extra(i, grade);
        const key = `${doc} ${grade} ${more.key ?? ""}`;
        if (drawn[i] === key) return;
        drawn[i] = key;
        const button = list.buttons[i];
        list.rows[i].dataset.grade = String(grade);
        setText(button.querySelector(".rl-title"), titles[doc]);
        drawGrade(button.querySelector(".grade"), grade, maxGrade);
        const said = [`Rank ${i + 1}. Grade ${grade}, ${GRADE_WORDS[grade] ?? ""}.`, more.label];
        said.push(i ? "Press to move up." : "At the top.");
        list.describe(i + 1, said.filter(Boolean).join(" "));
        if (gradeSelects[i].value !== String(grade)) gradeSelects[i].value = String(grade);
        more.draw?.(button);
      });
    },
  };
}

/** The order after moving the result at `rank` (1-based, > 1) up one place. */
export function promoted(order, rank) {
  const next = order.slice();
  [next[rank - 2], next[rank - 1]] = [next[rank - 1], next[rank - 2]];
  return next;
}

/**
 * The URL keys of a graded list whose documents can move: `order` (documents by rank,
 * numbered from 1, each once) and `grades` (in rank order, as a reader writes them).
 * Documents move with their grades; `grades`, applied after `order`, sets each rank's grade.
 */
export function gradedListFields(limits) {
  const count = limits.order.length;
  return {
    order(text, state) {
      const what = `documents 1 to ${count}, each once`;
      const docs = parseIntegers(text, "order", 1, count, what);
      if (docs.length !== count) throw new Ignored(`order must list ${what}, separated by commas`);
      if (new Set(docs).size !== count) throw new Ignored(`order must list ${what}`);
      return { ...state, order: docs.map((d) => d - 1) };
    },
    grades(text, state) {
      const ranked = parseGradeList(text, "grades", limits.grades);
      const grades = state.grades.slice();
      state.order.forEach((doc, i) => (grades[doc] = ranked[i]));
      return { ...state, grades };
    },
  };
}

/** The `grades` and `order` query pairs of a graded list (order only once documents moved). */
export function gradedListQuery(state) {
  const pairs = [["grades", rankedGrades(state).join(",")]];
  if (state.order.some((doc, i) => doc !== i)) pairs.push(["order", state.order.map((d) => d + 1).join(",")]);
  return pairs;
}

/**
 * Play and Step, for a figure whose numbers build up in an order worth watching (figure 2's swaps
 * to the ideal order, figure 1's AP terms, the unjudged figure's documents judged one by one).
 * `advance()` takes one step and returns false when none is left; Play runs a step every
 * `stepMs`, Step runs one. `what` ends the buttons' accessible names ("Play the animation"), and
 * `label`, if given, stands before them;
 * `onEnd()` forgets the figure's progress when the run ends (its last step, or a reader's change).
 * Returns { el (the buttons), status (a line for what the step did), stop(), end() }.
 */
export function createPlayer({ what = "the animation", label = "", advance, stepMs = 900, onEnd = () => {} }) {
  const el = h("div", "player");
  // A short visible label says what Play plays where the figure has more than one thing to play.
  if (label) el.append(h("span", "player-label", label));
  const play = h("button", "fig-button", "▶ Play");
  const step = h("button", "fig-button", "Step");
  for (const b of [play, step]) b.type = "button";
  play.setAttribute("aria-label", `Play ${what}`);
  step.setAttribute("aria-label", `One step of ${what}`);
  // The progress, on its own line: as it grows and shrinks it moves no button.
  const status = h("p", "player-status");
  status.setAttribute("role", "status");
  el.append(play, step);
  let timer = null;

  // Every reader's change ends a run (stop, end): when none is running they write nothing, so a
  // click pays no style work for a button and a line that stay as they are (with no run, Play
  // already says Play).
  function stop() {
    if (timer === null) return;
    clearInterval(timer);
    timer = null;
    setText(play, "▶ Play");
    setAttr(play, "aria-label", `Play ${what}`);
  }
  play.addEventListener("click", () => {
    if (timer) return stop();
    if (!advance()) return;
    play.textContent = "❚❚ Pause";
    play.setAttribute("aria-label", `Pause ${what}`);
    timer = setInterval(() => advance() || stop(), stepMs);
  });
  step.addEventListener("click", () => {
    stop();
    advance();
  });
  function end() {
    stop();
    onEnd();
    setText(status, "");
  }
  return { el, status, stop, end };
}
