// connection.js: a served light page's link to its Python session, with no Bokeh or Panel.
//
// A served figure page is the exported light page (explainer.js draws its figures and computes
// every number), plus this script, called with { token, ready, lost, unreachable } (explainer/export.py).
// It speaks the few messages of Bokeh's websocket protocol a page needs, so that Python follows
// each figure as it does behind a Panel page:
//   the server's ACK -> PULL-DOC-REQ { states } -> PULL-DOC-REPLY (each figure's state model, in page order)
//   -> PATCH-DOC { "document ready" } (Panel sends no change of Python's before it)
//   a reader's change -> PATCH-DOC { ModelChanged of that model's `state` } -> the server's OK
//   Python's change   <- PATCH-DOC { ModelChanged ... }, shown as Panel shows one
// A message is three text frames (header, metadata, content), then a text and a binary frame per
// buffer, which no state has. The figures work before the session answers and after it is gone:
// changes made meanwhile are sent once it is there, the last one per figure.
(function connectToPython(config) {
  "use strict";
  const figures = [...document.querySelectorAll("relevance-figure")];
  const ids = new Array(figures.length).fill(null); // figure -> its state model's id, once known
  const synced = new Array(figures.length).fill(null); // the JSON of the state Python last has
  const pending = new Set(); // figures whose change waits to be sent
  let socket = null;
  let opened = false;
  let leaving = false;
  let sent = 0;

  // -- Bokeh's encoding of plain values: a map is { type: "map", entries: [[key, value], ...] } --

  function encode(value) {
    if (Array.isArray(value)) return value.map(encode);
    if (value !== null && typeof value === "object") {
      return { type: "map", entries: Object.entries(value).map(([key, item]) => [key, encode(item)]) };
    }
    return value;
  }

  function decode(value) {
    if (Array.isArray(value)) return value.map(decode);
    if (value !== null && typeof value === "object") {
      if (value.type === "map") return Object.fromEntries((value.entries ?? []).map(([key, item]) => [key, decode(item)]));
      if (value.type === "number") return Number(value.value);
      throw new Error(`a state holds a value connection.js does not read: ${value.type}`);
    }
    return value;
  }

  // -- messages --

  function send(msgtype, content) {
    socket.send(JSON.stringify({ msgid: `p${++sent}`, msgtype }));
    socket.send("{}");
    socket.send(JSON.stringify(content));
  }

  function flush() {
    if (!opened || socket.readyState !== WebSocket.OPEN) return;
    const events = [];
    for (const i of pending) {
      const state = figures[i].figureState;
      if (ids[i] === null || state === null) continue;
      const text = JSON.stringify(state);
      if (text !== synced[i]) events.push({ kind: "ModelChanged", model: { id: ids[i] }, attr: "state", new: encode(state) });
      synced[i] = text;
    }
    pending.clear();
    if (events.length) send("PATCH-DOC", { events });
  }

  /** The figures' state models in the document, in the page's order: each an object with a `state` map. */
  function stateModels(doc) {
    const found = [];
    const seen = new Set();
    const walk = (value) => {
      if (Array.isArray(value)) return value.forEach(walk);
      if (value === null || typeof value !== "object") return;
      if (value.type === "object" && typeof value.id === "string" && !seen.has(value.id)) {
        seen.add(value.id);
        const state = value.attributes?.state;
        if (state?.type === "map") found.push({ id: value.id, state: decode(state) });
      }
      for (const item of Object.values(value)) walk(item);
    };
    walk(doc.roots);
    return found;
  }

  function linkFigures(doc) {
    // Panel holds Python's changes back until the page says its document is ready.
    send("PATCH-DOC", { events: [config.ready] });
    const models = stateModels(doc);
    if (models.length !== figures.length) {
      console.warn(`connection.js: the page has ${figures.length} figures and its session ${models.length}; Python will not follow them`);
      return;
    }
    models.forEach((model, i) => {
      ids[i] = model.id;
      synced[i] = JSON.stringify(model.state);
      pending.add(i); // the page's own state (its URL's, or a reader's changes) is sent if it differs
    });
    flush();
  }

  function receive(message) {
    const { header, content } = message;
    if (header.msgtype === "ACK") {
      send("PULL-DOC-REQ", { states: true }); // only the figures' state models (server/mirror.py LIGHT_PULL)
    } else if (header.msgtype === "PULL-DOC-REPLY") {
      linkFigures(content.doc);
    } else if (header.msgtype === "PATCH-DOC") {
      for (const event of content.events ?? []) {
        const i = event.kind === "ModelChanged" && event.attr === "state" ? ids.indexOf(event.model?.id) : -1;
        if (i < 0) continue;
        const state = decode(event.new);
        synced[i] = JSON.stringify(state);
        figures[i].receive(state);
      }
    } else if (header.msgtype === "ERROR") {
      console.warn(`connection.js: the server refused a message: ${content.text}`);
    }
  }

  // -- the notice when the connection is lost (or never made): news, not an error --

  function notify(text) {
    if (leaving || document.querySelector(".connection-notice")) return;
    const notice = document.createElement("div");
    notice.className = "connection-notice";
    notice.setAttribute("role", "status");
    const message = document.createElement("p");
    message.textContent = text;
    const close = document.createElement("button");
    close.type = "button";
    close.textContent = "×";
    close.setAttribute("aria-label", "Close this notice");
    close.addEventListener("click", () => notice.remove());
    notice.append(message, close);
    document.body.append(notice);
  }

  // -- start --

  figures.forEach((figure, i) =>
    figure.addEventListener("statechange", () => {
      if (pending.size === 0) queueMicrotask(flush); // after the click has drawn its numbers, before the frame
      pending.add(i);
    }),
  );
  window.addEventListener("pagehide", () => (leaving = true));
  if (!figures.length || !config.token) return;
  const url = new URL(window.location.pathname.replace(/\/?$/, "/ws"), window.location.href);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  socket = new WebSocket(url, ["bokeh", config.token]);
  let frames = [];
  let expected = 3;
  socket.addEventListener("open", () => (opened = true));
  socket.addEventListener("message", (event) => {
    frames.push(event.data);
    if (frames.length === 1) expected = 3 + 2 * (JSON.parse(frames[0]).num_buffers ?? 0);
    if (frames.length < expected) return;
    const [header, , content] = frames;
    frames = [];
    receive({ header: JSON.parse(header), content: JSON.parse(content) });
  });
  socket.addEventListener("close", () => notify(opened ? config.lost : config.unreachable));
});
