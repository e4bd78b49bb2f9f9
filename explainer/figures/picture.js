// A picture for slides: a figure as it stands, at presenter scale, saved as SVG or as PNG at
// twice its pixel size, made in the browser with no library and no network.
//
// The frame is laid out once as presenter view lays it out, without its controls (the class
// `picturing`, figures.css), and copied with every element's computed style written into it
// (figures draw in shadow roots, so no stylesheet of the page could be carried along). The copy
// goes into an SVG <foreignObject>: that is the SVG file. The PNG is that SVG drawn on a canvas;
// a self-contained data: SVG does not taint the canvas in Chromium. Fonts are the page's own
// system fonts: nothing is fetched.

const XHTML = "http://www.w3.org/1999/xhtml";
const SVG = "http://www.w3.org/2000/svg";
// The PNG's pixels per CSS pixel: sharp on a projector and on a high-density screen.
export const PNG_SCALE = 2;
// Room around the figure, in CSS pixels, so that a slide's edge does not cut into its heading.
export const MARGIN_PX = 16;
let pictureCount = 0; // each figure's fold has an id of its own on a page of several figures

/** A file name for a figure's picture: its name and its state's URL keys, as "binary_relevant-2-3-5_k-4". */
export function pictureName(className, pairs) {
  const figure = className.replace(/^fig-/, "");
  const parts = pairs.map(([key, value]) => `${key}-${String(value).replace(/[^0-9A-Za-z.]+/g, "-").replace(/^-+|-+$/g, "")}`);
  return [figure, ...parts].join("_").slice(0, 120);
}

/**
 * Two buttons that save the figure in `frame` as it stands: PNG (for slides) and SVG.
 * `name()` gives the file name without its extension. On a phone's screen (figures.css) the two
 * fold under one "Save picture" button that shows them, so that a phone's header stays short.
 */
export function createPictureButtons(frame, name) {
  const group = document.createElement("span");
  group.className = "fig-picture";
  group.setAttribute("role", "group");
  group.setAttribute("aria-label", "A picture for slides");
  const saves = document.createElement("span");
  saves.className = "fig-picture-saves";
  saves.id = `fig-picture-saves-${++pictureCount}`;
  const fold = document.createElement("button");
  fold.type = "button";
  fold.className = "fig-button fig-picture-fold";
  fold.textContent = "Save picture";
  fold.setAttribute("aria-expanded", "false");
  fold.setAttribute("aria-controls", saves.id);
  const open = (on) => {
    fold.setAttribute("aria-expanded", String(on));
    group.classList.toggle("is-open", on);
  };
  fold.addEventListener("click", () => open(fold.getAttribute("aria-expanded") !== "true"));
  group.addEventListener("keydown", (event) => {
    if (event.key !== "Escape" || fold.getAttribute("aria-expanded") !== "true") return;
    open(false);
    fold.focus();
  });
  group.append(fold, saves);
  for (const type of ["png", "svg"]) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "fig-button fig-picture-save";
    button.dataset.type = type;
    button.textContent = `Save ${type.toUpperCase()}`;
    button.title =
      type === "png"
        ? "Save the figure as it stands as a PNG picture for slides (presenter view's type, twice the pixels)"
        : "Save the figure as it stands as an SVG picture";
    button.addEventListener("click", async () => {
      if (button.getAttribute("aria-disabled") === "true") return;
      button.setAttribute("aria-disabled", "true");
      try {
        const picture = await takePicture(frame, type);
        download(picture.blob, `${name()}.${type}`);
      } finally {
        button.removeAttribute("aria-disabled");
      }
    });
    saves.append(button);
  }
  return group;
}

/** The figure in `frame` as a picture: { blob, width, height } in CSS pixels (a PNG has PNG_SCALE times as many). */
export async function takePicture(frame, type) {
  const { svg, width, height } = await capture(frame);
  if (type === "svg") return { blob: new Blob([svg(1)], { type: "image/svg+xml" }), width, height };
  const image = new Image();
  image.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg(PNG_SCALE))}`;
  await image.decode();
  const canvas = document.createElement("canvas");
  canvas.width = width * PNG_SCALE;
  canvas.height = height * PNG_SCALE;
  canvas.getContext("2d").drawImage(image, 0, 0);
  const blob = await new Promise((resolve, reject) =>
    canvas.toBlob((made) => (made ? resolve(made) : reject(new Error("The browser could not make the PNG."))), "image/png"),
  );
  return { blob, width, height };
}

/**
 * Lay the frame out as presenter view does, without its controls, and copy it. The copy is made
 * in a resize observer's callback, which runs after the figure's own observers (they place the
 * cutoff marker for the new row heights) and before the browser paints: the page never shows
 * the changed layout. Returns { svg(scale), width, height }.
 */
function capture(frame) {
  const page = document.documentElement.style;
  const pageWidth = page.getPropertyValue("--explainer-page-width");
  const present = frame.classList.contains("present");
  frame.classList.add("present", "picturing");
  page.setProperty("--explainer-page-width", "100%");
  const restore = () => {
    frame.classList.remove("picturing");
    frame.classList.toggle("present", present);
    if (pageWidth) page.setProperty("--explainer-page-width", pageWidth);
    else page.removeProperty("--explainer-page-width");
  };
  return new Promise((resolve, reject) => {
    let done = false;
    const copy = () => {
      if (done) return;
      done = true;
      observer.disconnect();
      try {
        resolve(copyFrame(frame));
      } catch (error) {
        reject(error);
      } finally {
        restore();
      }
    };
    const observer = new ResizeObserver(copy);
    observer.observe(frame);
    // A page in a background tab runs no observers: copy it as it is laid out by then.
    setTimeout(copy, 1000);
  });
}

function copyFrame(frame) {
  const box = frame.getBoundingClientRect();
  const width = Math.ceil(box.width) + 2 * MARGIN_PX;
  const height = Math.ceil(box.height) + 2 * MARGIN_PX;
  const baseline = createBaseline();
  let copy;
  try {
    copy = copyElement(frame, null, baseline);
  } finally {
    baseline.remove();
  }
  copy.style.margin = "0";
  copy.style.position = "static";
  const wrapper = document.createElementNS(XHTML, "div");
  wrapper.setAttribute("style", `width: ${width}px; height: ${height}px; padding: ${MARGIN_PX}px; box-sizing: border-box; overflow: hidden; background: ${backgroundOf(frame)};`);
  wrapper.append(copy);
  const picture = document.createElementNS(SVG, "svg");
  picture.setAttribute("viewBox", `0 0 ${width} ${height}`);
  const content = document.createElementNS(SVG, "foreignObject");
  for (const [name, value] of [["x", 0], ["y", 0], ["width", width], ["height", height]]) content.setAttribute(name, String(value));
  content.append(wrapper);
  picture.append(content);
  // The same picture, `scale` times as many pixels wide and high.
  const svg = (scale) => {
    picture.setAttribute("width", String(width * scale));
    picture.setAttribute("height", String(height * scale));
    return new XMLSerializer().serializeToString(picture);
  };
  return { svg, width, height };
}

// Properties written on every element whatever they equal: the browser's own styles give some of
// them in em (a heading's size and margins), which would grow again inside a copied parent.
const SIDES = ["top", "right", "bottom", "left"];
const ALWAYS = new Set([
  "display",
  "font-size",
  "line-height",
  "width",
  "height",
  "box-sizing",
  ...SIDES.flatMap((side) => [`margin-${side}`, `padding-${side}`]),
]);

const PLAIN = { fieldset: "div", legend: "div" };

/**
 * Elements of each kind as the browser styles them with no stylesheet of ours, in a shadow root
 * of their own: what a copied element need not spell out.
 */
function createBaseline() {
  const host = document.createElement("div");
  host.style.cssText = "all: initial; position: fixed; left: -10000px; top: 0; width: 0; height: 0; overflow: hidden;";
  const root = host.attachShadow({ mode: "open" });
  document.body.append(host);
  const styles = new Map();
  host.styleOf = (tag) => {
    if (!styles.has(tag)) {
      const element = document.createElement(tag);
      root.append(element);
      const style = getComputedStyle(element);
      styles.set(tag, Object.fromEntries(Array.from(style, (name) => [name, style.getPropertyValue(name)])));
    }
    return styles.get(tag);
  };
  return host;
}

/** The element's copy with its computed style written out: a property equal both to the bare element's and to the parent's is left out. */
function copyElement(element, parentStyle, baseline) {
  const style = getComputedStyle(element);
  // A fieldset and its legend lay out by rules of their own, which a copy does not meet again
  // (its legend fell out of its box): as plain boxes with the same styles they stay where they were.
  const plain = PLAIN[element.localName];
  const copy = plain ? document.createElementNS(XHTML, plain) : element.cloneNode(false);
  for (const name of copy.getAttributeNames()) {
    if (name !== "colspan" && name !== "rowspan" && name !== "lang" && name !== "dir") copy.removeAttribute(name);
  }
  if (element.checked) copy.setAttribute("checked", "");
  copy.setAttribute("style", styleText(style, parentStyle, baseline.styleOf(copy.localName)) + oneLine(element, style));
  const before = pseudo(element, "::before", style, baseline);
  if (before) copy.append(before);
  for (const child of element.childNodes) {
    if (child.nodeType === Node.TEXT_NODE) copy.append(child.textContent);
    else if (child.nodeType === Node.ELEMENT_NODE && getComputedStyle(child).display !== "none") {
      copy.append(copyElement(child, style, baseline));
    }
  }
  const after = pseudo(element, "::after", style, baseline);
  if (after) copy.append(after);
  return copy;
}

function styleText(style, parentStyle, bare) {
  const written = [];
  for (const name of style) {
    if (name.startsWith("--")) continue;
    const value = exact(style.getPropertyValue(name));
    if (!ALWAYS.has(name) && value === bare[name] && (!parentStyle || value === parentStyle.getPropertyValue(name))) continue;
    written.push(`${name}: ${value}`);
  }
  return written.join("; ");
}

/**
 * A wrapping flex box whose items sit on one line stays on one line: a box as wide as its items
 * is exactly as wide as their lengths written back, to the 64th of a pixel, and would wrap again.
 */
function oneLine(element, style) {
  if (!style.display.endsWith("flex") || style.flexWrap === "nowrap") return "";
  const tops = new Set();
  for (const child of element.children) {
    const box = child.getBoundingClientRect();
    if (box.width || box.height) tops.add(Math.round(box.top));
  }
  return tops.size > 1 ? "" : "; flex-wrap: nowrap";
}

/**
 * A length as the layout had it: the browser lays out in 64ths of a pixel and reports lengths
 * rounded to thousandths, so a row of boxes written back as reported can come out a hair wider
 * than the box around it, and wrap.
 */
function exact(value) {
  const px = /^(-?\d+(?:\.\d+)?)px$/.exec(value);
  return px ? `${Math.round(Number(px[1]) * 64) / 64}px` : value;
}

/** A ::before or ::after as a span of its own, for the marks that stylesheets draw. */
function pseudo(element, which, parentStyle, baseline) {
  const style = getComputedStyle(element, which);
  const content = style.getPropertyValue("content");
  if (!content || content === "none" || content === "normal" || style.display === "none") return null;
  const span = document.createElementNS(XHTML, "span");
  span.setAttribute("style", styleText(style, parentStyle, baseline.styleOf("span")));
  const text = /^"(.*)"$/s.exec(content);
  span.textContent = text ? text[1].replace(/\\"/g, '"').replace(/\\\\/g, "\\") : "";
  return span;
}

/** The colour behind the figure: its own, else the nearest ancestor's (across shadow roots), else the page's. */
function backgroundOf(frame) {
  for (let node = frame; node; node = node.parentElement ?? node.getRootNode().host) {
    const colour = getComputedStyle(node).backgroundColor;
    if (colour && colour !== "transparent" && colour !== "rgba(0, 0, 0, 0)") return colour;
  }
  return getComputedStyle(frame).colorScheme.includes("dark") ? "#0d1117" : "#ffffff";
}

function download(blob, name) {
  const url = URL.createObjectURL(blob);
  const link = document.createElement("a");
  link.href = url;
  link.download = name;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
