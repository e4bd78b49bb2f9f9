// The class address on the screen: served for a class (--address), presenter view offers a
// button that shows a large QR code of the address students open, and the address in words.
// The server sends the code's modules (explainer/classroom.py); this draws them.

const SVG = "http://www.w3.org/2000/svg";
// The white border a scanner needs around the code, in modules.
const QUIET_ZONE = 4;

/** The QR code of `rows` ("1" dark, "0" light) as an SVG image, black on white whatever the theme. */
export function qrImage(rows, label) {
  const size = rows.length + 2 * QUIET_ZONE;
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", `0 0 ${size} ${size}`);
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", label);
  svg.setAttribute("shape-rendering", "crispEdges");
  const background = document.createElementNS(SVG, "rect");
  background.setAttribute("width", String(size));
  background.setAttribute("height", String(size));
  background.setAttribute("fill", "#ffffff");
  const path = document.createElementNS(SVG, "path");
  path.setAttribute("fill", "#000000");
  path.setAttribute(
    "d",
    rows
      .flatMap((row, y) => [...row].flatMap((module, x) => (module === "1" ? [`M${x + QUIET_ZONE} ${y + QUIET_ZONE}h1v1h-1z`] : [])))
      .join(""),
  );
  svg.append(background, path);
  return svg;
}

/**
 * A button, shown in presenter view only, that shows or hides the class address's QR code over
 * the figure (Escape hides it too). Returns the button; the code is placed in `frame`.
 */
export function createClassAddress(frame, address, rows) {
  const button = document.createElement("button");
  button.type = "button";
  button.className = "fig-button class-address-toggle";
  button.textContent = "Class address";
  button.title = "Show the address of these pages as a QR code, for students' phones";
  const panel = document.createElement("div");
  panel.className = "class-address";
  panel.hidden = true;
  const words = document.createElement("p");
  words.className = "class-address-text";
  words.textContent = address;
  panel.append(qrImage(rows, `QR code of ${address}`), words);
  frame.append(panel);
  const set = (on) => {
    panel.hidden = !on;
    button.setAttribute("aria-pressed", String(on));
  };
  button.addEventListener("click", () => set(panel.hidden));
  frame.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && !panel.hidden) set(false);
  });
  set(false);
  return button;
}
