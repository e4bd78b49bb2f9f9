// The load test's driver, run in each host page. A session is a real Bokeh server session of a
// figure page, made by fetching the page (so the server builds it, as for any visitor) and
// embedding it with Bokeh's own embed_items, the call the page's inline script makes. The host
// page already has BokehJS, Panel and the import map loaded, so a session costs a document and a
// websocket rather than a full page load: that is what lets 100 of them run on two cores.
// `deep` and `read` are deep.js and read_figure.js.
/* global Bokeh */
(deep, read) => {
  const KEYS = ['ArrowUp', 'ArrowDown', 'PageUp', 'PageDown', 'Home', 'End'];
  const seeded = (seed) => () => {
    seed |= 0; seed = (seed + 0x6D2B79F5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const byText = (fig, text) => [...fig.querySelectorAll('button')].find((b) => b.textContent === text);
  function act(fig, random) {
    const pick = (list) => list[Math.floor(random() * list.length)];
    const key = () => fig.querySelector('.rl-cutoff').dispatchEvent(new KeyboardEvent('keydown', { key: pick(KEYS), bubbles: true }));
    const r = random();
    if (fig.classList.contains('fig-binary')) {
      if (r < 0.45) pick(fig.querySelectorAll('.rl-row button.rl-activate')).click();
      else if (r < 0.65) key();
      else if (r < 0.95) pick(fig.querySelectorAll('.stepper button')).click();
      else byText(fig, 'Reset').click();
    } else {
      if (r < 0.35) pick(fig.querySelectorAll('.rl-row button.rl-activate')).click();
      else if (r < 0.55) {
        const select = pick(fig.querySelectorAll('select.grade-select'));
        select.value = String(Math.floor(random() * 4));
        select.dispatchEvent(new Event('change'));
      } else if (r < 0.7) pick(fig.querySelectorAll('input[type=radio]')).click();
      else if (r < 0.85) key();
      else if (r < 0.95) byText(fig, 'Step').click();
      else byText(fig, 'Reset').click();
    }
  }
  window.__load = {
    sessions: [],
    // Fetch a page (the server makes its session) and embed that session here.
    async open(path) {
      const html = await (await fetch(path)).text();
      const doc = new DOMParser().parseFromString(html, 'text/html');
      const box = document.createElement('div');
      box.className = 'load-session';
      box.id = `load-session-${this.sessions.length}`;
      const ids = {};
      for (const div of doc.querySelectorAll('div[data-root-id]')) {
        const el = document.createElement('div');
        el.id = ids[div.id] = `${box.id}-${div.id}`;
        el.style.display = 'contents';
        box.append(el);
      }
      document.body.append(box);
      const script = [...doc.querySelectorAll('script')].map((s) => s.textContent).find((t) => t.includes('render_items'));
      const items = JSON.parse(script.match(/const render_items = (\[.*?\]);/s)[1]);
      for (const item of items) item.roots = Object.fromEntries(Object.entries(item.roots).map(([root, el]) => [root, ids[el]]));
      this.sessions.push({ box, token: items[0].token, path, done: 0 });
      await Bokeh.embed.embed_items('{}', items, path);
    },
    ready() {
      return this.sessions.every(({ box }) => deep('.fig-binary, .fig-ndcg', box).length > 0);
    },
    // Each session makes `actions` interactions, at random moments spread over about `spanMs`.
    start(actions, spanMs, seed) {
      this.sessions.forEach((session, i) => {
        const random = seeded(seed * 1000 + i);
        const figures = deep('.fig-binary, .fig-ndcg', session.box);
        const next = () => {
          if (session.done >= actions) return;
          act(figures[Math.floor(random() * figures.length)], random);
          session.done += 1;
          setTimeout(next, (0.2 + 1.6 * random()) * spanMs / actions);
        };
        setTimeout(next, random() * spanMs / actions);
      });
    },
    progress() {
      return this.sessions.map((s) => s.done);
    },
    shown() {
      return this.sessions.map(({ box, token, path }) => ({ token, path, figures: deep('.fig-binary, .fig-ndcg', box).map(read) }));
    },
  };
};
