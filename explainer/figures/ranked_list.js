// The ranked list: rows to press, a cutoff marker between them that a pointer or the keys move.
//
// Rows are buttons (click, Enter or Space activates one); the marker sits between rows, is dragged
// with the pointer or moved with the keyboard, and snaps to the boundaries 1..count. The figure
// fills each row and decides what activation does.
import { describedBy, h, refocus, setText } from "explainer/dom";

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
  const { list, rows, buttons, descriptions } = createRows({ count, label, buildRow, onActivate });
  const { marker, handle } = createMarker(cutoffName, maxK);
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

  dragMarker(marker, gutter, { move, nearest, followCutoff });
  stepMarker(marker, move, () => k, maxK);

  // In the tab order the marker comes right after the rows it cuts: it lives in row k's list item
  // (it is positioned against the whole list, so where it lives does not move it on screen). Not
  // while it is dragged: taking it out of the document would end the drag.
  function followCutoff() {
    const host = rows[Math.min(k, count) - 1];
    if (!host || marker.parentNode === host || marker.classList.contains("rl-dragging")) return;
    const hadFocus = marker.getRootNode().activeElement === marker;
    const ring = marker.matches(":focus-visible"); // a keyboard's focus keeps its ring; a pointer's has none
    host.append(marker);
    if (hadFocus) marker.focus({ preventScroll: true, focusVisible: ring });
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

/** The rows, one list item each, with a button to press and its description for a screen reader. */
function createRows({ count, label, buildRow, onActivate }) {
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
  return { list, rows, buttons, descriptions };
}

/** The cutoff marker: a vertical slider whose handle says k. */
function createMarker(cutoffName, maxK) {
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
  return { marker, handle };
}

/** The marker follows the pointer: `move(k)` commits a new k, `nearest(clientY)` finds it, `followCutoff()` runs on release. */
function dragMarker(marker, gutter, { move, nearest, followCutoff }) {
  // Pointer: drag the marker, or press anywhere in the gutter to bring it there.
  // On a touch screen only the marker itself is dragged: a swipe that starts beside the list (in
  // the gutter) or on a row scrolls the page, as a swipe should.
  for (const target of [marker, gutter]) {
    target.addEventListener("pointerdown", (event) => {
      if (event.button !== 0 || (target === gutter && event.pointerType === "touch")) return;
      event.preventDefault();
      marker.focus({ preventScroll: true, focusVisible: false }); // the ring is the keyboard's
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
}

/** The marker follows the arrow keys, Page Up and Down, Home and End; `at()` is the current k. */
function stepMarker(marker, move, at, maxK) {
  const keySteps = {
    ArrowUp: () => at() - 1,
    ArrowLeft: () => at() - 1,
    ArrowDown: () => at() + 1,
    ArrowRight: () => at() + 1,
    PageUp: () => at() - 3,
    PageDown: () => at() + 3,
    Home: () => 1,
    End: () => maxK,
  };
  marker.addEventListener("keydown", (event) => {
    const step = keySteps[event.key];
    if (!step) return;
    event.preventDefault();
    // A pointer's focus had no ring; the keyboard's use shows it.
    if (!marker.matches(":focus-visible")) refocus(marker);
    move(step());
  });
}

// Every list's marker is placed by one resize observer and one frame callback, which measure every
// marker they place before moving any. With an observer and a callback per list, a page of seven
// figures forced a layout per list in its first frame: each list read the rows' layout that the
// list before it had just invalidated by moving its marker.
let rowsResized = null; // made at the first list: this module is also imported where there is no DOM
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
