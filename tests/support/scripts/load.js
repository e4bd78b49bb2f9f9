// The load test's driver, run in each host page. A session is a real server session of a figure
// page, made as any visitor's is: the page is loaded (in a frame of the host page: the light page
// and its connection.js, which opens the session's websocket). A light page loads no Bokeh or
// Panel, so a session costs a frame's page, a document in the server and a websocket: that is
// what lets 100 of them run on two cores. `deep` and `read` are deep.js and read_figure.js.
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
    // Load a page in a frame here: its connection.js has the server make its session.
    async open(path) {
      const frame = document.createElement('iframe');
      frame.className = 'load-session';
      frame.style.cssText = 'width: 900px; height: 600px; border: 0';
      const loaded = new Promise((resolve) => frame.addEventListener('load', resolve, { once: true }));
      frame.src = path;
      document.body.append(frame);
      await loaded;
      const box = frame.contentDocument;
      const token = box.documentElement.outerHTML.match(/"token":"([^"]+)"/)[1];
      this.sessions.push({ box, token, path, done: 0 });
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
