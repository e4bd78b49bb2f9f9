// The benchmark's in-page API, added to every measured page as an init script. It only
// defines functions, so it costs nothing until the benchmark calls them.
(() => {
  /** Every element matching `selector` in the document and, recursively, in every open shadow root. */
  function deepAll(selector, root = document, out = []) {
    out.push(...root.querySelectorAll(selector));
    for (const el of root.querySelectorAll("*")) if (el.shadowRoot) deepAll(selector, el.shadowRoot, out);
    return out;
  }

  /** Resolve after the next frame (or 100 ms if frames are throttled), as between a reader's clicks. */
  function nextFrame() {
    return new Promise((resolve) => {
      const fallback = setTimeout(resolve, 100);
      requestAnimationFrame(() => setTimeout(() => { clearTimeout(fallback); resolve(); }, 0));
    });
  }

  /** The figure is drawn: some metrics text is on the page. */
  function ready() {
    return deepAll(".metric-formula").some((el) => el.textContent.trim() !== "");
  }

  /** The page's frame interval in ms: the median gap between 30 animation frames. */
  async function frameInterval() {
    const times = [];
    await new Promise((resolve) => {
      const step = (now) => {
        times.push(now);
        if (times.length > 30) resolve();
        else requestAnimationFrame(step);
      };
      requestAnimationFrame(step);
    });
    const gaps = times.slice(1).map((t, i) => t - times[i]).sort((a, b) => a - b);
    return gaps[Math.floor(gaps.length / 2)];
  }

  /**
   * Click rows in a loop and time each until the text of the `watch` elements has changed.
   * `ranks` are cycled through; with `promote`, a rank whose row has the same grade as
   * the row above is skipped (swapping them changes no number). After each click the loop
   * waits for the next frame and then `pauseMs`. Returns the times in ms from the click to
   * the changed text, to the layout done after it, and to the first animation frame that
   * runs once the text has changed (the frame that paints it).
   */
  async function clicks({ ranks, watch, promote = false, count, warmup, pauseMs = 0, timeoutMs = 2000 }) {
    const buttons = deepAll(".rl-activate");
    const rows = deepAll(".rl-row");
    const readouts = deepAll(watch);
    if (!buttons.length || !readouts.length) throw new Error(`no .rl-activate rows or no ${watch} on the page`);
    const text = () => readouts.map((el) => el.textContent).join("\n");
    const textMs = [];
    const layoutMs = [];
    const paintMs = [];
    let failures = 0;
    let cursor = 0;
    for (let i = 0; i < warmup + count; i++) {
      let rank;
      for (let tries = 0; tries < ranks.length && rank === undefined; tries++) {
        const r = ranks[cursor++ % ranks.length];
        if (!promote || rows[r - 1].dataset.grade !== rows[r - 2].dataset.grade) rank = r;
      }
      if (rank === undefined) throw new Error("no row whose click would change the readout");
      const before = text();
      let changedAt = null;
      let done;
      const changed = new Promise((resolve) => (done = resolve));
      let painted;
      const paint = new Promise((resolve) => (painted = resolve));
      const observer = new MutationObserver(() => {
        const now = performance.now(); // first, so the comparison below is not counted
        if (changedAt === null && text() !== before) {
          changedAt = now;
          requestAnimationFrame(() => painted(performance.now()));
          done();
        }
      });
      for (const el of readouts) observer.observe(el, { childList: true, characterData: true, subtree: true });
      const timer = setTimeout(done, timeoutMs);
      const t0 = performance.now();
      buttons[rank - 1].click();
      await changed;
      clearTimeout(timer);
      observer.disconnect();
      if (changedAt === null) {
        failures++;
      } else {
        readouts[0].getBoundingClientRect(); // forces the style and layout the change needs
        const laidOut = performance.now();
        const frameAt = await paint;
        if (i >= warmup) {
          textMs.push(changedAt - t0);
          layoutMs.push(laidOut - t0);
          paintMs.push(frameAt - t0);
        }
      }
      await nextFrame();
      if (pauseMs) await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
    return { textMs, layoutMs, paintMs, failures };
  }

  window.__bench = { deepAll, ready, frameInterval, clicks };
})();
