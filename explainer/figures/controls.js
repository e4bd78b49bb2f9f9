// The small controls figures share: a stepper, radio buttons, a grade menu, a hint that flashes.
import { h, setAttr, setText } from "explainer/dom";

/** A line that says, for a moment, why a press did nothing. */
export function createFlash() {
  const el = h("p", "fig-hint");
  el.setAttribute("role", "status");
  let timer = null;
  return {
    el,
    flash(text) {
      el.textContent = text;
      clearTimeout(timer);
      timer = setTimeout(() => (el.textContent = ""), 2500);
    },
  };
}

/**
 * A count the reader steps with − and + buttons: `label` is its visible label (text or a node),
 * `names` the accessible names { less, more, value }, `onStep(by)` runs with -1 or +1.
 * Returns { el, set(value, { canLess, canMore }) }.
 */
export function createStepper(label, names, onStep) {
  const el = h("div", "stepper");
  const labelEl = h("span", "stepper-label");
  labelEl.append(label);
  const less = h("button", "fig-button", "−");
  const more = h("button", "fig-button", "+");
  less.type = more.type = "button";
  less.setAttribute("aria-label", names.less);
  more.setAttribute("aria-label", names.more);
  const value = h("output", "stepper-value");
  if (names.value) value.setAttribute("aria-label", names.value);
  el.append(labelEl, less, value, more);
  less.addEventListener("click", () => onStep(-1));
  more.addEventListener("click", () => onStep(1));
  return {
    el,
    set(count, { canLess, canMore }) {
      setText(value, String(count));
      // aria-disabled, not disabled: a disabled button would drop the keyboard focus.
      setAttr(less, "aria-disabled", String(!canLess));
      setAttr(more, "aria-disabled", String(!canMore));
    },
  };
}

/**
 * A labelled group of radio buttons. `options` is a list of [value, label]; `onChange(value)`
 * runs when the reader picks one. Returns { el, set(value) }.
 */
export function createRadioGroup(legend, name, options, onChange, className = "") {
  const el = h("fieldset", `gain-switch ${className}`.trim());
  el.append(h("legend", "", legend));
  const inputs = {};
  for (const [value, label] of options) {
    const option = h("label", "gain-option");
    const input = h("input");
    input.type = "radio";
    input.name = name;
    input.value = value;
    input.addEventListener("change", () => onChange(value));
    option.append(input, " ", label);
    inputs[value] = input;
    el.append(option);
  }
  return {
    el,
    set(value) {
      for (const [key, input] of Object.entries(inputs)) input.checked = key === value;
    },
  };
}

/** A menu of grades 0..maxGrade for one row; `onChange(grade)` runs when the reader picks one. */
export function createGradeSelect(maxGrade, label, onChange) {
  const select = h("select", "grade-select");
  select.setAttribute("aria-label", label);
  for (let g = 0; g <= maxGrade; g++) {
    const option = h("option", "", String(g));
    option.value = String(g);
    select.append(option);
  }
  select.addEventListener("change", () => onChange(Number(select.value)));
  return select;
}
