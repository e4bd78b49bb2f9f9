// <relevance-figure>: the figures as one tag for any HTML page, with no Bokeh, no Panel and no
// network. This script makes a function, defineRelevanceFigure, which explainer.js calls with what
// explainer/runtime.py builds from the figures' own modules, stylesheets and view data:
//   bundle:  { stylesheets: [css, ...],
//              figures: { name: { title, caption, stylesheets: [index, ...], model: {...} } } }
//   modules: { "explainer/metrics": (require) => exports, "explainer/shell": ..., name: ... },
//            each module's own code as a function, its imports turned into require(...)
// Each figure runs the very module the Panel view runs (render, queryFields, toQuery), handed a
// model that behaves as Panel's does for what the modules use (model.js).
(() => {
  "use strict";

  /** The exports of a module, run once, when a figure first needs it: a figure's (by its name), or a shared one ("explainer/shell", "explainer/model"...). */
  function createLoader(modules) {
    const loaded = new Map(); // module name -> its exports
    return function load(name) {
      if (!loaded.has(name)) {
        if (!Object.hasOwn(modules, name)) throw new Error(`explainer.js has no module named ${name}`);
        loaded.set(name, Object.freeze(modules[name](load)));
      }
      return loaded.get(name);
    };
  }

  /** A figure's stylesheets: parsed once, shared by every figure's shadow root. */
  function createStylesheets(stylesheets) {
    let sheets = null;
    return function stylesheetsOf(figure) {
      if (!sheets) {
        sheets = stylesheets.map((css) => {
          const sheet = new CSSStyleSheet();
          sheet.replaceSync(css);
          return sheet;
        });
      }
      return figure.stylesheets.map((i) => sheets[i]);
    };
  }

  /** The tag's class, over the bundle's figures, their modules (`load`) and their stylesheets. */
  function tagClass(bundle, load, stylesheetsOf) {
    /**
     * <relevance-figure name="binary" state="relevant=2,3,5&k=4" theme="dark" caption="...">: one
     * figure in its own shadow root, as tall as its content. `state` takes the keys of the figure
     * page's URL, with the same notices for values it ignores; `theme` is light, dark or auto (the
     * host page's: furo's data-theme on <body> or the color-scheme around the tag, watched, else the
     * system's); `caption` replaces the figure's own caption ("" for none).
     * `standalone` makes it the whole page (its title as the heading, state in the page URL,
     * presenter view), `on-page` has it follow the page URL's theme key, and `page-link` adds links
     * to the figure's own page in the reader's state: the exported pages use them. `predict` hides the
     * headline numbers until the reader has guessed them (on a standalone page, so does ?predict=1). A reader's change dispatches
     * a "statechange" event with { state, query }.
     */
    class RelevanceFigure extends HTMLElement {
      static observedAttributes = ["name", "state", "theme", "caption", "predict"];
      static version = bundle.version; // the explainer's version, as `relevance-explainer --version` prints it

      static load = load;
      static figures = Object.freeze(Object.keys(bundle.figures));

      #shell = null;
      #unwatch = () => {}; // stops following the host page's theme (theme="auto")
      #urlQuery = null; // explainer/query: the notices of the page keys
      #query = null; // the figure's state as a query: (state) => text
      #receive = null;

      /** The figure's current state (null until it is drawn). */
      get figureState() {
        return this.#shell ? this.#shell.state() : null;
      }

      /** Show a state that comes from elsewhere, as a change from Python is shown in Panel (no statechange event). */
      receive(state) {
        this.#receive?.(state);
      }

      /**
       * What a class's script (served for a class) uses of a figure page: `query()` (its state as its
       * link's query), `canonical(search)` (a link's query as `query()` would write its state), `values()` (the numbers predict mode hides), `together(mode)` and `revealAll()`
       * (predict together). Null until it is drawn.
       */
      get classroom() {
        return this.#shell?.classroom ?? null;
      }

      connectedCallback() {
        if (!this.shadowRoot) this.attachShadow({ mode: "open" });
        if (!this.#shell) this.#mount();
        else this.#ask(this.#query(this.#shell.state()), false); // moved: follow its new host's theme
      }

      disconnectedCallback() {
        this.#unwatch();
      }

      attributeChangedCallback(attribute, before, after) {
        if (!this.shadowRoot || before === after) return;
        if (attribute === "state" && this.#shell) this.#ask(this.getAttribute("state") ?? "");
        // A new theme keeps the state the reader has reached.
        else if (attribute === "theme" && this.#shell) this.#ask(this.#query(this.#shell.state()), false);
        else if (attribute === "predict" && this.#shell) this.#shell.predicting(this.hasAttribute("predict"));
        else if (attribute === "name" || attribute === "caption") this.#mount();
      }

      #mount() {
        this.#shell = null;
        const root = this.shadowRoot;
        const name = this.getAttribute("name") ?? "";
        const figure = Object.hasOwn(bundle.figures, name) ? bundle.figures[name] : null;
        if (!figure) {
          this.#problem(`No figure is named “${name}”. explainer.js has ${RelevanceFigure.figures.join(", ")}.`);
          return;
        }
        const [module, urlQuery] = [load(name), load("explainer/query")];
        const el = document.createElement("div");
        root.adoptedStyleSheets = stylesheetsOf(figure);
        root.replaceChildren(el);
        const values = structuredClone(figure.model);
        values.caption = this.getAttribute("caption") ?? figure.caption;
        values.standalone = this.hasAttribute("standalone");
        values.heading = values.standalone ? figure.title : "";
        values.on_page = this.hasAttribute("on-page");
        values.predict = this.hasAttribute("predict");
        values.page_link = this.getAttribute("page-link") ?? "";
        const { model, receive } = load("explainer/model").createModel(`<relevance-figure name="${name}">`, values, (key, value) => {
          if (key !== "state") return;
          const query = () => this.#query(value); // made only if a listener asks: a click need not pay for it
          this.dispatchEvent(new CustomEvent("statechange", { detail: { state: value, get query() { return query(); } } }));
        });
        // A state from elsewhere (Python, on a served page): shown as Panel shows one, with no statechange.
        this.#receive = (state) => receive("state", state);
        // Drawn once, in the state the tag asks for: drawing the article's example first and then
        // updating every part to the asked state doubled each figure's start-up work. #ask below
        // reads the attribute again for its notices and Reset; it finds the state already drawn.
        if (!values.standalone) {
          const search = this.getAttribute("state") ?? "";
          values.state = urlQuery.stateFromQuery(search, module.queryFields(model), values.default, values.max_query_length).state;
        }
        this.#urlQuery = urlQuery;
        this.#query = (state) => urlQuery.queryText(new URLSearchParams(module.toQuery(state, model)));
        el.addEventListener("figure-mounted", (event) => (this.#shell = event.detail), { once: true });
        try {
          module.render({ model, el });
        } catch (error) {
          this.#problem(`The figure could not be drawn: ${error.message}`);
          throw error;
        }
        if (!values.standalone) this.#ask(this.getAttribute("state") ?? "");
      }

      /**
       * Show the state a query asks for, and the theme attribute's, with a notice of what was
       * ignored; Reset returns to it unless `opens` is false (the reader's own state, asked again).
       */
      #ask(search, opens = true) {
        if (!this.#shell) return; // a page of its own (the workbench) reads no state attribute
        const theme = this.getAttribute("theme") ?? "auto";
        const { setTheme, watchHostTheme } = load("explainer/theme");
        this.#unwatch();
        this.#unwatch = () => {};
        // auto: the page around the tag, watched (furo's switch, a dark class), else the system.
        if (theme === "light" || theme === "dark") setTheme(this, theme);
        else this.#unwatch = watchHostTheme(this, (asked) => setTheme(this, asked));
        this.#shell.ask(search, this.#urlQuery.ignoredPageKeys(new URLSearchParams({ theme })), opens);
      }

      #problem(text) {
        const box = document.createElement("p");
        box.setAttribute("role", "alert");
        box.textContent = text;
        this.shadowRoot.replaceChildren(box);
      }
    }
    return RelevanceFigure;
  }

  return function defineRelevanceFigure(bundle, modules) {
    if (window.customElements.get("relevance-figure")) return; // the script was included twice
    const RelevanceFigure = tagClass(bundle, createLoader(modules), createStylesheets(bundle.stylesheets));
    window.RelevanceFigure = RelevanceFigure;
    window.customElements.define("relevance-figure", RelevanceFigure);
  };
})();
