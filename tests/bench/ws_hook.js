// Init script for the round trip: timestamps Bokeh's protocol frames in the page. A Bokeh
// message is a header frame ({"msgid", "msgtype", "reqid"?}), a metadata frame and a content
// frame; only short frames are parsed, so the document itself never is.
(() => {
  const ws = (window.__benchWs = { sent: [], oks: new Map() });
  const Native = window.WebSocket;
  const header = (data) => {
    if (typeof data !== "string" || data.length > 400 || !data.includes('"msgtype"')) return null;
    try { return JSON.parse(data); } catch { return null; }
  };
  class Timed extends Native {
    constructor(...args) {
      super(...args);
      // Added before BokehJS sets onmessage, so it runs first.
      this.addEventListener("message", (event) => {
        const now = performance.now();
        const h = header(event.data);
        if (h && h.msgtype === "OK" && h.reqid) ws.oks.set(h.reqid, now);
      });
    }
    send(data) {
      const now = performance.now();
      const h = header(data);
      if (h) {
        ws.sent.push({ t: now, msgid: h.msgid, msgtype: h.msgtype, state: null });
      } else if (typeof data === "string" && data.length < 4000 && data.startsWith('{"events"')) {
        // The content of the PATCH just announced: keep the figure state it sends.
        try {
          const change = JSON.parse(data).events.find((e) => e.kind === "ModelChanged" && e.attr === "state");
          const last = ws.sent[ws.sent.length - 1];
          if (change && last) last.state = Object.fromEntries(change.new.entries);
        } catch {
          // Not a figure's change after all: nothing to time.
        }
      }
      return super.send(data);
    }
  }
  window.WebSocket = Timed;
})();
