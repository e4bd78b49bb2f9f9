// A picture for slides: a figure as it stands, at presenter scale, saved as SVG or as PNG at
// twice its pixel size, made in the browser with no library and no network.
//
// The frame is laid out once as presenter view lays it out, without its controls (the class
// `picturing`, shell.css), and copied with every element's computed style written into it
// (figures draw in shadow roots, so no stylesheet of the page could be carried along). The copy
// goes into an SVG <foreignObject>: that is the SVG file. The PNG is that SVG drawn on a canvas;
// a self-contained data: SVG does not taint the canvas in Chromium. Fonts are the page's own
// system fonts: nothing is fetched.
//
// A chart alone (Save chart) is plain SVG, with no foreignObject, which slide tools draw: its
// SVG copied with its geometry, its boxes and text drawn as SVG where the layout put them, and
// every style written as a presentation attribute.

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
  // Figure 1's chart view is named by shownView's suffix, as before it was in the link.
  const parts = pairs.filter(([key]) => key !== "chart").map(([key, value]) => `${key}-${String(value).replace(/[^0-9A-Za-z.]+/g, "-").replace(/^-+|-+$/g, "")}`);
  return [figure, ...parts].join("_").slice(0, 120);
}

/**
 * The chart view the frame shows, for a file name, when it is not the figure's first ("_precision-recall"):
 * two pictures of one state in two views must not share a name.
 */
function shownView(frame) {
  const charts = [...frame.querySelectorAll("[data-picture]")].filter((chart) => chart.getClientRects().length);
  const view = charts[0]?.dataset.picture;
  return view && view !== "chart" ? `_${view}` : "";
}

/** "light" or "dark": the theme the picture is drawn in, from the colour behind the figure. */
export function themeOf(frame) {
  const [r, g, b] = rgbOf(backgroundOf(frame));
  return 0.2126 * r + 0.7152 * g + 0.0722 * b < 128 ? "dark" : "light";
}

/**
 * Two buttons that save the figure in `frame` as it stands: PNG (for slides) and SVG.
 * `name()` gives the file name without its theme and extension. On a phone's screen (shell.css) the two
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
        download(picture.blob, `${name()}${shownView(frame)}_${themeOf(frame)}.${type}`);
      } finally {
        button.removeAttribute("aria-disabled");
      }
    });
    saves.append(button);
  }
  return group;
}

/**
 * A button that saves `chart` (a .kchart figure of chart.js, in `frame`) alone, as plain SVG for
 * slides. Its data-type says what it saves: "svg", or "png" for the picture command's .png.
 */
export function createChartButton(chart, frame, name) {
  const button = document.createElement("button");
  button.type = "button";
  button.className = "fig-button kchart-save";
  button.dataset.type = "svg";
  button.textContent = "Save chart";
  button.title = "Save this chart alone as an SVG picture for slides";
  button.addEventListener("click", async () => {
    if (button.getAttribute("aria-disabled") === "true") return;
    button.setAttribute("aria-disabled", "true");
    const type = button.dataset.type;
    try {
      const picture = await takePicture(frame, type, chart);
      download(picture.blob, `${name()}_${chart.dataset.picture}_${themeOf(frame)}.${type}`);
    } finally {
      button.removeAttribute("aria-disabled");
    }
  });
  return button;
}

/**
 * The figure in `frame`, or its `chart` alone, as a picture: { blob, width, height } in CSS pixels
 * (a PNG has PNG_SCALE times as many).
 */
export async function takePicture(frame, type, chart = null) {
  const { svg, width, height } = await capture(frame, chart ? () => copyChart(chart, frame) : () => copyFrame(frame));
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
 * the changed layout. `copyLaidOut()` makes the picture from it: { svg(scale), width, height }.
 */
function capture(frame, copyLaidOut) {
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
        resolve(copyLaidOut());
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
  return scalable(picture, width, height);
}

// The picture as SVG text, `scale` times as many pixels wide and high as its CSS pixels.
function scalable(picture, width, height) {
  const svg = (scale) => {
    picture.setAttribute("width", String(width * scale));
    picture.setAttribute("height", String(height * scale));
    return new XMLSerializer().serializeToString(picture);
  };
  return { svg, width, height };
}

function svgNode(tag, attributes) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  return node;
}

/**
 * The chart alone as plain SVG: on the colour behind the figure, each HTML box of the chart that
 * shows a colour (its frame, the key's swatches) as a rect, its text as SVG text at the place the
 * layout gave it, and its SVG copied into a group that maps the SVG's coordinates to the same place.
 */
function copyChart(chart, frame) {
  const box = chart.getBoundingClientRect();
  const width = Math.ceil(box.width) + 2 * MARGIN_PX;
  const height = Math.ceil(box.height) + 2 * MARGIN_PX;
  const origin = { x: box.left - MARGIN_PX, y: box.top - MARGIN_PX };
  const picture = svgNode("svg", { viewBox: `0 0 ${width} ${height}` });
  picture.append(svgNode("rect", { width, height, ...paint("fill", backgroundOf(frame)) }));
  drawHtml(chart, picture, origin);
  flattenOpacity(picture, rgbOf(backgroundOf(frame)));
  return scalable(picture, width, height);
}

/**
 * Every see-through colour of a chart's picture mixed with the background behind the chart, and
 * its opacities dropped: renderers without a compositor draw `opacity` badly (ImageMagick's fills
 * a polyline's inside grey and paints translucent columns opaque). A shape over another shows the
 * background's mix, not the other shape's: the charts' translucent shapes lie on the background.
 */
function flattenOpacity(element, background, alpha = { opacity: 1, fill: 1, stroke: 1 }) {
  // opacity composes with the parent's; fill-opacity and stroke-opacity are inherited, or replaced.
  const take = (name, inherited, compose) => {
    const value = element.getAttribute(name);
    element.removeAttribute(name);
    if (value === null) return inherited;
    return compose ? inherited * Number(value) : Number(value);
  };
  const own = {
    opacity: take("opacity", alpha.opacity, true),
    fill: take("fill-opacity", alpha.fill, false),
    stroke: take("stroke-opacity", alpha.stroke, false),
  };
  for (const name of ["fill", "stroke"]) {
    const colour = element.getAttribute(name);
    const a = own.opacity * own[name];
    if (a >= 1 || !colour?.startsWith("rgb")) continue;
    const mixed = rgbOf(colour).slice(0, 3).map((c, i) => Math.round(a * c + (1 - a) * background[i]));
    element.setAttribute(name, `rgb(${mixed.join(", ")})`);
  }
  for (const child of element.children) flattenOpacity(child, background, own);
}

function drawHtml(element, into, origin) {
  const style = getComputedStyle(element);
  if (style.display === "none" || style.visibility === "hidden") return;
  if (element.namespaceURI === SVG) {
    // The SVG's own coordinates (its viewBox) to the picture's, as the page places and scales them.
    const { a, b, c, d, e, f } = element.getScreenCTM();
    const group = svgNode("g", { transform: `matrix(${[a, b, c, d, e - origin.x, f - origin.y].join(" ")})` });
    into.append(copySvg(element, group, null));
    return;
  }
  const box = element.getBoundingClientRect();
  const border = parseFloat(style.borderTopWidth) || 0;
  const fill = paint("fill", style.backgroundColor);
  if (fill.fill !== "none" || border) {
    const rect = {
      x: box.left - origin.x + border / 2,
      y: box.top - origin.y + border / 2,
      width: box.width - border,
      height: box.height - border,
      rx: parseFloat(style.borderTopLeftRadius) || 0,
      ...fill,
    };
    Object.assign(rect, border ? { ...paint("stroke", style.borderTopColor), "stroke-width": border } : { stroke: "none" });
    into.append(svgNode("rect", rect));
  }
  for (const child of element.childNodes) {
    if (child.nodeType === Node.TEXT_NODE) drawText(child, style, into, origin);
    else if (child.nodeType === Node.ELEMENT_NODE) drawHtml(child, into, origin);
  }
}

/** A text node as one SVG text per line it takes on screen, each where its first word starts, on its baseline. */
function drawText(node, style, into, origin) {
  const range = document.createRange();
  const lines = [];
  for (const word of node.textContent.matchAll(/\S+/g)) {
    range.setStart(node, word.index);
    range.setEnd(node, word.index + word[0].length);
    const box = range.getBoundingClientRect();
    if (!box.width) continue;
    const line = lines.at(-1);
    if (line && Math.abs(line.top - box.top) < 1) line.words.push(word[0]);
    else lines.push({ top: box.top, left: box.left, words: [word[0]] });
  }
  if (!lines.length) return;
  const font = [style.fontStyle, style.fontWeight, style.fontSize, style.fontFamily].join(" ");
  const ascent = measure(font).fontBoundingBoxAscent;
  for (const { top, left, words } of lines) {
    const text = svgNode("text", {
      x: left - origin.x,
      y: top - origin.y + ascent,
      ...paint("fill", style.color),
      stroke: "none",
      "font-family": style.fontFamily,
      "font-size": parseFloat(style.fontSize),
      "font-weight": style.fontWeight,
      "font-style": style.fontStyle,
    });
    text.textContent = words.join(" ");
    into.append(text);
  }
}

// A font's ascent, from a canvas: how far below a line's top its text's baseline is.
let measurer = null;
function measure(font) {
  measurer ??= document.createElement("canvas").getContext("2d");
  measurer.font = font;
  return measurer.measureText("Hg");
}

// The styles an SVG's look is made of, written on each copied element as presentation
// attributes (slide tools read those, and no stylesheet travels with the file), with the value a
// standalone file starts from. Every one but opacity is inherited.
const PAINTED = {
  fill: "rgb(0, 0, 0)",
  "fill-opacity": "1",
  stroke: "none",
  "stroke-width": "1",
  "stroke-opacity": "1",
  "stroke-dasharray": "none",
  "stroke-linejoin": "miter",
  "stroke-linecap": "butt",
  opacity: "1",
  "font-family": "",
  "font-size": "",
  "font-weight": "400",
  "font-style": "normal",
  "text-anchor": "start",
};
// What the page's scripts and stylesheets read, which a picture has no use for.
const UNPICTURED = /^(class|style|id|tabindex|role|aria-.*|data-.*)$/;

/**
 * `element`'s SVG children copied into `into`, with every geometry attribute they have and
 * `element`'s look as presentation attributes of `into`: a value is written where it differs
 * from what `into` would inherit from its parent (`parentStyle`, or a standalone file's start).
 */
function copySvg(element, into, parentStyle) {
  const style = getComputedStyle(element);
  for (const [name, start] of Object.entries(PAINTED)) {
    const value = svgValue(name, style.getPropertyValue(name));
    const inherited = parentStyle && name !== "opacity" ? svgValue(name, parentStyle.getPropertyValue(name)) : start;
    // Fill and stroke on every element, inherited or not: ImageMagick's renderer outlined shapes that left them to inheritance.
    if (value !== inherited || name === "fill" || name === "stroke") into.setAttribute(name, value);
  }
  // A colour with an alpha (rgba) is a colour and an opacity in SVG 1.1, which slide tools read.
  for (const name of ["fill", "stroke"]) {
    const given = into.getAttribute(name);
    if (given?.startsWith("rgba")) Object.entries(paint(name, given)).forEach(([key, value]) => into.setAttribute(key, value));
  }
  for (const child of element.childNodes) {
    if (child.nodeType === Node.TEXT_NODE) into.append(child.textContent);
    else if (child.nodeType === Node.ELEMENT_NODE && getComputedStyle(child).display !== "none") {
      into.append(copySvg(child, unpictured(child), style));
    }
  }
  return into;
}

/** An SVG element's copy with its own attributes, geometry and all, but none of UNPICTURED. */
function unpictured(element) {
  const copy = element.cloneNode(false);
  for (const name of copy.getAttributeNames()) if (UNPICTURED.test(name)) copy.removeAttribute(name);
  return copy;
}

/** A computed style's value as an SVG attribute writes it: lengths in user units, "6px, 4px" as "6 4". */
function svgValue(name, value) {
  if (name === "font-family" || name === "fill" || name === "stroke") return value;
  const units = value.replace(/(\d)px/g, "$1");
  return name === "stroke-dasharray" ? units.replace(/,\s*/g, " ") : units;
}

/** A CSS colour as SVG 1.1 paint: { [name]: "rgb(...)" or "none", and [name]-opacity if it is not opaque }. */
function paint(name, colour) {
  const [r, g, b, alpha] = rgbOf(colour);
  if (alpha === 0) return { [name]: "none" };
  return alpha < 1 ? { [name]: `rgb(${r}, ${g}, ${b})`, [`${name}-opacity`]: alpha } : { [name]: `rgb(${r}, ${g}, ${b})` };
}

/** A computed colour's [r, g, b, alpha] ("rgb(1, 2, 3)", "rgba(1, 2, 3, 0.5)", "transparent"). */
function rgbOf(colour) {
  const [r = 0, g = 0, b = 0, alpha = colour.startsWith("rgb") ? 1 : 0] = (colour.match(/[\d.]+/g) ?? []).map(Number);
  return [r, g, b, alpha];
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
  if (element.namespaceURI === SVG) {
    // A chart: its box styled as the HTML around it is, its drawing copied with its geometry.
    const copy = copySvg(element, unpictured(element), parentStyle);
    copy.setAttribute("style", styleText(style, parentStyle, baseline.styleOf("span")));
    return copy;
  }
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
  return getComputedStyle(frame).colorScheme.includes("dark") ? "rgb(13, 17, 23)" : "rgb(255, 255, 255)";
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
