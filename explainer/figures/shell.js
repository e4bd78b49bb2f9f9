// The figure shell: what every figure has around its own parts, bound to its model and its page.
import { h } from "explainer/dom";
import { createAnnouncer } from "explainer/announcer";
import { ignoredPageKeys, queryText, stateFromQuery } from "explainer/query";
import { rememberOpening, setPageKey, stateFromPage, writeQuery } from "explainer/page-url";
import { applyPageTheme, createThemeSwitch, onThemeChange, themeOfQuery } from "explainer/theme";
import { createUndo } from "explainer/undo";
import { createPresenterToggle } from "explainer/presenter";
import { createHeadline } from "explainer/headline";
import { isEmbedded, reportHeight } from "explainer/embedded";
import { createClassAddress } from "explainer/class-address";
import { createChartButton, createPictureButtons, pictureName } from "explainer/picture";
import { createPredict } from "explainer/predict";

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

/**
 * Mount a figure in `el`: its frame and caption, a header (the query, the figure's controls, its
 * tools, Undo, Reset and, on the explainer's own pages, the presenter toggle and the light or dark
 * switch), the notice of URL values it
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
  const embedded = model.standalone && isEmbedded(window.location.search);
  const { frame, root } = createFrame(model, figure, el, embedded);
  let state;
  let opened = null; // the state the figure opened in, after its link's values
  let commit = null;
  // A reader's change (a click, a key, Reset, a step of Play) goes through change(): Undo can take
  // it back. A state from Python, or from a tag's new attribute, is not the reader's.
  const { tools, undo, reset, example, notice, announcer, predict, pictured, ...head } = createHead(model, figure, {
    frame,
    root,
    embedded,
    state: () => state,
    back: (previous) => {
      onReset();
      commit(previous);
    },
  });
  const paint = createPaintQueue();
  const shell = {
    model,
    limits: model.limits,
    frame,
    root,
    head: head.el,
    notice: notice.el,
    controls: (...nodes) => tools.before(...nodes),
    tools: (...nodes) => undo.el.before(...nodes),
    state: () => state,
    commit: (next) => change(next),
    say: predict.say,
    predict: predict.targets,
    predicting: predict.set,
    beforePaint: (draw) => paint.beforePaint("figure", draw),
  };
  // What a class (served for one: classroom/class.js) asks of a figure page, through its tag.
  shell.classroom = {
    query: () => queryText(new URLSearchParams(figure.toQuery(state, model))),
    // A link's query as this figure writes the state it asks for ("" is the article's example).
    canonical: (search) => queryText(new URLSearchParams(figure.toQuery(stateFromQuery(search, figure.queryFields(model), model.default, model.max_query_length).state, model))),
    values: predict.values,
    together: predict.together,
    revealAll: predict.revealAll,
  };
  const built = figure.build(shell);
  // Each chart (chart.js) can be saved alone, for a slide of its own.
  if (pictured) for (const chart of root.querySelectorAll(".kchart")) chart.append(createChartButton(chart, frame, pictured));
  const { update, onReset = () => {} } = typeof built === "function" ? { update: built } : built;
  root.append(announcer.el);

  let heightChanged = () => {};
  const links = model.page_link ? createPageLinks(root, model.page_link, () => figure.toQuery(state, model)) : null;
  commit = bindState(model, (next) => {
    state = next;
    predict.follow(next);
    update(next);
    paint.beforePaint("shell", () => {
      if (model.standalone) writeQuery(figure.toQuery(state, model));
      links?.update(figure.toQuery(state, model));
      heightChanged();
    });
  });
  function change(next) {
    if (JSON.stringify(next) !== JSON.stringify(state)) undo.push(state);
    commit(next);
  }
  const show = (asked, notes = []) => {
    notice.show([...asked.ignored, ...notes]);
    if (JSON.stringify(asked.state) !== JSON.stringify(state)) commit(asked.state);
  };
  // The Example button shows only where Reset does not go back to the article's example already.
  const showExample = () => {
    if (example) example.hidden = figure.reset?.to !== undefined || JSON.stringify(opened) === JSON.stringify(model.default);
  };
  if (model.standalone || model.on_page) applyPageTheme(window.location.search);
  const fields = figure.queryFields(model);
  if (model.standalone) {
    const base = model.state; // what a link's missing keys keep (showing the link changes model.state)
    show(stateFromPage(fields, base, model.max_query_length), ignoredPageKeys(window.location.search));
    // Reset goes back to the link the page was opened with, after a reload too (a class's lecture
    // plan, issue #28, would hand its step here instead).
    const opening = rememberOpening();
    if (opening !== window.location.search) opened = stateFromQuery(opening, fields, base, model.max_query_length).state;
  }
  opened ??= structuredClone(state);
  showExample();
  const { to = () => structuredClone(opened) } = figure.reset ?? {};
  reset.addEventListener("click", () => {
    onReset();
    change(to(state));
  });
  example?.addEventListener("click", () => {
    onReset();
    change(structuredClone(model.default));
  });
  if (embedded) heightChanged = reportHeight(frame);
  /**
   * Show the state a query asks for, from the article's example, with the same notices as a
   * link's (and `notes`). It becomes the state the figure opened with, which Reset returns to,
   * unless `opens` is false (the same state asked again, as for a new theme).
   */
  shell.ask = (search, notes = [], opens = true) => {
    show(stateFromQuery(search, fields, model.default, model.max_query_length), notes);
    if (opens) {
      opened = structuredClone(state);
      undo.clear();
    }
    showExample();
  };
  paint.start();
  el.dispatchEvent(new CustomEvent("figure-mounted", { detail: shell }));
  return shell;
}

/** The figure's frame, in `el`, around its root: the heading (on a page of its own) and the caption. */
function createFrame(model, figure, el, embedded) {
  const frame = h("div", "fig-frame");
  const root = h("div", `fig ${figure.className}`);
  frame.append(root);
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
  return { frame, root };
}

/**
 * The figure's header: the query, its tools (Undo, Reset, Example, Predict first, the picture
 * buttons, the presenter toggle, light or dark, the class address), with the notice, the live region, the headline bar
 * and the predict mode the shell hands the figure. `pictured` names the picture (null where the
 * page shows no picture buttons).
 */
function createHead(model, figure, { frame, root, embedded, state, back }) {
  const head = h("div", "fig-head");
  if (model.query) {
    const query = h("p", "fig-query");
    query.append("Query: ", h("q", "", model.query));
    head.append(query);
  }
  const tools = h("div", "fig-tools");
  // Reset goes back to the state the figure opened in (a teacher's link); where that is not the
  // article's example, a second button goes back to the example. A figure may reset otherwise.
  const { label = "Reset", title = "Back to the state this page opened with" } = figure.reset ?? {};
  const reset = h("button", "fig-button fig-reset", label);
  reset.type = "button";
  reset.title = title;
  const undo = createUndo(frame, back);
  tools.append(undo.el, reset);
  // Not in an embed, a frame or a writer's tag: it is the example its page teaches with.
  const writersTag = !model.standalone && frame.getRootNode().host?.localName === "relevance-figure";
  let example = null;
  if (!embedded && !writersTag) {
    example = h("button", "fig-button fig-example", "Example");
    example.type = "button";
    example.title = "Back to the article's example";
    example.hidden = true;
    tools.append(example);
  }
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
  const pictured = pictures ? () => pictureName(figure.className, figure.toQuery(state(), model)) : null;
  if (pictures) tools.append(createPictureButtons(frame, pictured));
  if (model.standalone && !embedded) tools.append(createPresenterToggle(frame));
  // Light or dark for the explainer's own pages, kept in their links (not in a writer's embed). Not
  // on a phone's screen, where the header must stay two lines: a phone follows its system, or the link.
  const phone = window.matchMedia("(max-width: 600px)").matches;
  if (((model.standalone && !embedded) || model.on_page) && !phone) tools.append(createThemeSwitch());
  // Served for a class (--address): presenter view can show the address as a QR code.
  if (model.standalone && !embedded && model.class_address) {
    tools.append(createClassAddress(frame, model.class_address, model.class_address_qr));
  }
  head.append(tools);
  frame.prepend(headline.el); // outside the grid, so that it can stay in view over the whole figure
  return { el: head, tools, undo, reset, example, notice, announcer, predict, pictured };
}

/**
 * What can wait for the frame: a figure's charts, and the URL and page links, are drawn in one
 * animation-frame callback, which runs before the frame that paints the change; the numbers a
 * reader reads are written in the click itself. Several changes in one frame draw the last state
 * once. Until start(), when the figure is mounted, everything is drawn at once, so that it opens
 * complete. `beforePaint(slot, draw)`: the figure's slot is drawn before the shell's.
 */
function createPaintQueue() {
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
  return {
    beforePaint(slot, draw) {
      later[slot] = draw;
      if (drawNow) flush();
      else laterFrame ||= requestAnimationFrame(flush);
    },
    start() {
      drawNow = false;
    },
  };
}

/**
 * On the story page: links to the figure's own page and its presenter view, carrying the state
 * the reader has brought the figure to and the page's theme. `pairs()` is the state's.
 */
function createPageLinks(root, pageLink, pairs) {
  const el = h("p", "figure-links");
  const own = h("a", "", "This figure on its own page");
  const present = h("a", "", "Presenter view");
  el.append(own, " · ", present);
  root.append(el);
  const update = (state = pairs()) => {
    own.href = figureLink(pageLink, state, window.location.search);
    present.href = figureLink(pageLink, state, window.location.search, true);
  };
  onThemeChange(() => update());
  return { update };
}

/** A link to a figure's page in a state (its [key, value] pairs), keeping the theme of the page it is on (`search`). */
export function figureLink(pageLink, pairs, search, present = false) {
  const params = new URLSearchParams(pairs);
  const theme = themeOfQuery(search);
  if (theme) params.set("theme", theme);
  if (present) params.set("present", "1");
  return `${pageLink}?${queryText(params)}`;
}
