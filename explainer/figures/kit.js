// The pieces every figure shares: the ranked list with its cutoff marker, the
// announcer for screen readers, and the binding of a figure's state to its model.
//
// The ranked list: rows are buttons (click, Enter or Space activates one); the marker sits between
// rows, is dragged with the pointer or moved with the keyboard, and snaps to the
// boundaries 1..count. The figure fills each row and decides what activation does.

/** Make an element with a class and optional text. */
export function h(tag, className = "", text = null) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== null) node.textContent = text;
  return node;
}

/**
 * Build the list. Options:
 *   count        number of rows
 *   label        accessible name of the list
 *   cutoffName   what the marker is called for a screen reader ("Cutoff k")
 *   buildRow(row, button, rank)   fill a row once; `button` is its activation target
 *   onActivate(rank)              a row was clicked or pressed
 *   onCutoff(k)                   the marker was moved to k
 * Returns { el, rows, buttons, update(k), highlight(ranks) }.
 */
export function createRankedList({ count, label, cutoffName = "Cutoff k", buildRow, onActivate, onCutoff }) {
  const el = h("div", "rl");
  const list = h("div", "rl-rows");
  list.setAttribute("role", "list");
  list.setAttribute("aria-label", label);
  const rows = [];
  const buttons = [];
  for (let rank = 1; rank <= count; rank++) {
    const row = h("div", "rl-row");
    row.setAttribute("role", "listitem");
    row.dataset.rank = String(rank);
    const button = h("button", "rl-activate");
    button.type = "button";
    button.addEventListener("click", () => onActivate(rank));
    row.append(button);
    buildRow(row, button, rank);
    rows.push(row);
    buttons.push(button);
    list.append(row);
  }

  const marker = h("div", "rl-cutoff");
  marker.tabIndex = 0;
  marker.setAttribute("role", "slider");
  marker.setAttribute("aria-label", cutoffName);
  marker.setAttribute("aria-orientation", "vertical");
  marker.setAttribute("aria-valuemin", "1");
  marker.setAttribute("aria-valuemax", String(count));
  const line = h("span", "rl-cutoff-line");
  const handle = h("span", "rl-cutoff-handle");
  marker.append(line, handle);
  const gutter = h("div", "rl-gutter");
  gutter.setAttribute("aria-hidden", "true");
  el.append(gutter, list, marker);

  let k = 1;

  // Row offsets are measured from `el`, the positioned container of rows and marker.
  function boundary(j) {
    const row = rows[j - 1];
    const next = rows[j];
    const bottom = row.offsetTop + row.offsetHeight;
    return next ? (bottom + next.offsetTop) / 2 : bottom + 3;
  }

  function place() {
    marker.style.top = `${boundary(k)}px`;
  }

  function nearest(clientY) {
    const y = clientY - el.getBoundingClientRect().top;
    let best = 1;
    for (let j = 2; j <= count; j++) {
      if (Math.abs(boundary(j) - y) < Math.abs(boundary(best) - y)) best = j;
    }
    return best;
  }

  function move(to) {
    const next = Math.max(1, Math.min(count, to));
    if (next !== k) onCutoff(next);
  }

  // Pointer: drag the marker, or press anywhere in the gutter to bring it there.
  for (const target of [marker, gutter]) {
    target.addEventListener("pointerdown", (event) => {
      if (event.button !== 0) return;
      event.preventDefault();
      marker.focus({ preventScroll: true });
      marker.setPointerCapture(event.pointerId);
      marker.classList.add("rl-dragging");
      move(nearest(event.clientY));
    });
  }
  marker.addEventListener("pointermove", (event) => {
    if (marker.hasPointerCapture(event.pointerId)) move(nearest(event.clientY));
  });
  const release = (event) => {
    if (marker.hasPointerCapture(event.pointerId)) marker.releasePointerCapture(event.pointerId);
    marker.classList.remove("rl-dragging");
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
    End: () => count,
  };
  marker.addEventListener("keydown", (event) => {
    const step = keySteps[event.key];
    if (!step) return;
    event.preventDefault();
    move(step());
  });

  new ResizeObserver(place).observe(list);

  return {
    el,
    rows,
    buttons,
    /** Show the cutoff at k: the marker's place, its label, and which rows fall below it. */
    update(nextK) {
      k = nextK;
      handle.textContent = `k = ${k}`;
      marker.setAttribute("aria-valuenow", String(k));
      marker.setAttribute("aria-valuetext", `k = ${k}: the top ${k} result${k === 1 ? "" : "s"} count`);
      rows.forEach((row, i) => row.classList.toggle("rl-below", i >= k));
      place();
    },
    /** Mark the rows at these ranks (1-based) as the ones a hovered measure uses. */
    highlight(ranks) {
      const chosen = new Set(ranks);
      rows.forEach((row, i) => row.classList.toggle("rl-highlight", chosen.has(i + 1)));
      el.classList.toggle("rl-highlighting", chosen.size > 0);
    },
  };
}

/** A polite live region that reads out the numbers once changes settle. */
export function createAnnouncer(delay = 500) {
  const el = h("div", "sr-only");
  el.setAttribute("aria-live", "polite");
  el.setAttribute("role", "status");
  let timer = null;
  return {
    el,
    say(text) {
      clearTimeout(timer);
      timer = setTimeout(() => {
        el.textContent = text;
      }, delay);
    },
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
