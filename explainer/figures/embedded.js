// A figure page inside another page's frame: how it knows, how it tells the frame its height.

/** Whether a figure page is embedded in another page: its link says embed=1, or it is in a frame (unless embed=0). */
export function isEmbedded(search) {
  const embed = new URLSearchParams(search).get("embed");
  return embed === "1" || (embed !== "0" && window.self !== window.top);
}

/**
 * Tell the page that frames this one how tall the figure is, whenever that changes, so that the
 * iframe can be sized to it (the README's snippet listens for the message). Returns the function
 * to call after the figure redraws.
 */
export function reportHeight(frame) {
  // The page around the figure keeps no room of its own (page.css reads these).
  document.documentElement.style.setProperty("--explainer-page-top", "0");
  document.documentElement.style.setProperty("--explainer-page-bottom", "0");
  let sent = 0;
  const send = () => {
    const height = Math.ceil(frame.getBoundingClientRect().bottom + window.scrollY + EMBED_MARGIN_PX);
    if (height !== sent) window.parent.postMessage({ type: "relevance-explainer:height", height }, "*");
    sent = height;
  };
  // A resize observer runs only while the frame is painted, and a browser does not paint a frame
  // that is off the screen: a timer measures it there too, at first and after each change.
  new ResizeObserver(send).observe(frame);
  let timer = setTimeout(send, 0);
  return () => {
    clearTimeout(timer);
    timer = setTimeout(send, 50);
  };
}

// Room below an embedded figure: its focus outlines and shadows stay inside the frame.
const EMBED_MARGIN_PX = 8;
