// The page's class channel: one websocket to the server's /channel, JSON messages with a version,
// said hello with the page's token and the phone's id, kept open with a ping, and reopened after a
// drop (a phone that slept, a wifi that blinked) a little later each time.
//
// connect({ url, token, student, receive, status }) opens it; receive(message) gets each message
// from the server, status(state) "open", "lost" (reconnecting) or "closed" (the server refused the
// page: no reconnecting). Returns { send(message) }: a message sent while the channel is down is
// dropped (a guess is sent again by its button; the teacher's clicks are the latest state).

const VERSION = 1;
const PING_EVERY_MS = 25_000;
// The server closes with one of these when the page itself is refused: trying again would not help.
export const FINAL_CODES = new Set(["bad-token", "token-expired", "token-too-long", "no-access-code"]);

/** How long to wait before reconnecting, after `attempt` failed tries: 1, 2, 4, 8, then 15 s, each with up to a quarter more at random (so that forty phones do not all come back at once). */
export function reconnectDelay(attempt, random = Math.random) {
  const base = Math.min(15_000, 1000 * 2 ** attempt);
  return Math.round(base * (1 + random() / 4));
}

/** A message to the server, as its text. */
export function encode(message) {
  return JSON.stringify({ v: VERSION, ...message });
}

/** A message from the server, or null for one this page does not read (another version, not JSON). */
export function decode(text) {
  try {
    const message = JSON.parse(text);
    return message !== null && typeof message === "object" && message.v === VERSION && typeof message.type === "string" ? message : null;
  } catch {
    return null;
  }
}

/** The address of the server's channel for a page at `location` (its prefix kept: /explainer/binary -> /explainer/channel). */
export function channelUrl(location) {
  const url = new URL("channel", location.href);
  url.protocol = location.protocol === "https:" ? "wss:" : "ws:";
  url.search = "";
  url.hash = "";
  return url.href;
}

export function connect({ url, token, student, receive, status }) {
  let socket = null;
  let attempt = 0;
  let pinger = 0;
  let pings = 0;
  let stopped = false;

  function open() {
    socket = new WebSocket(url);
    socket.addEventListener("open", () => {
      attempt = 0;
      socket.send(encode({ type: "hello", token, student }));
      pinger = setInterval(() => socket.readyState === WebSocket.OPEN && socket.send(encode({ type: "ping", n: (pings += 1) })), PING_EVERY_MS);
      status("open");
    });
    socket.addEventListener("message", (event) => {
      const message = typeof event.data === "string" ? decode(event.data) : null;
      if (message) receive(message);
    });
    socket.addEventListener("close", (event) => {
      clearInterval(pinger);
      if (stopped) return;
      if (FINAL_CODES.has(event.reason)) {
        stopped = true;
        status("closed", event.reason);
        return;
      }
      status("lost");
      setTimeout(open, reconnectDelay(attempt));
      attempt += 1;
    });
  }

  open();
  window.addEventListener("pagehide", () => {
    stopped = true;
    socket?.close();
  });
  return {
    send(message) {
      if (socket?.readyState === WebSocket.OPEN) socket.send(encode(message));
    },
  };
}
