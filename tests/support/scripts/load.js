// The load test's driver, run in each host page: students of a class, each a real class page in a
// frame of the host page named "student-N" (its class.js joins the class over the page's own channel,
// as a phone's does; phone_storage.js gives each frame the sessionStorage a phone's tab would have).
// A light page loads no Bokeh or Panel and the channel is one small websocket, so a student costs a
// frame's page: that is what lets 100 of them run on two cores. `deep` is deep.js.
(deep) => {
  const SEND_LABEL = "Send my guess";
  const docOf = (student) => student.frame.contentDocument;
  const news = (student) => docOf(student)?.querySelector(".class-news")?.textContent ?? "";
  window.__load = {
    students: [],
    // Load a page in a frame here (the join address, /class): its class.js joins the class.
    async open(path, name) {
      const frame = document.createElement("iframe");
      frame.className = "load-student";
      frame.name = name;
      frame.style.cssText = "width: 390px; height: 700px; border: 0";
      const student = { frame, loads: 0 };
      frame.addEventListener("load", () => (student.loads += 1));
      const loaded = new Promise((resolve) => frame.addEventListener("load", resolve, { once: true }));
      frame.src = path;
      document.body.append(frame);
      await loaded;
      this.students.push(student);
    },
    // How many have joined: the server welcomed their page (class.js marks its body).
    joined() {
      return this.students.filter((s) => docOf(s)?.body?.classList.contains("class-joined")).length;
    },
    // How many show the question: predict mode's inputs and its send button.
    asked() {
      return this.students.filter((s) => docOf(s) && deep("button", docOf(s)).some((b) => b.textContent === SEND_LABEL && b.offsetParent !== null)).length;
    },
    // Each student types its guesses (`values`: { key: text }, the n-th student's own) and sends them.
    guess(values) {
      this.students.forEach((student, n) => {
        const doc = docOf(student);
        for (const [key, text] of Object.entries(values[n % values.length])) {
          const input = deep(`[data-predict="${key}"] input`, doc)[0];
          input.value = text;
          input.dispatchEvent(new Event("input", { bubbles: true }));
        }
        deep("button", doc).find((b) => b.textContent === SEND_LABEL).click();
      });
    },
    // What each student's class bar says.
    news() {
      return this.students.map(news);
    },
    // Each student's address (path and query) and how many pages its frame has loaded.
    where() {
      return this.students.map((s) => ({ at: s.frame.contentWindow.location.pathname + s.frame.contentWindow.location.search, loads: s.loads }));
    },
  };
};
