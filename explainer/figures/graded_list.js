// The graded list figure 2 and the conventions figure share: results the reader reorders and regrades.
import { h, setText } from "explainer/dom";
import { createFlash, createGradeSelect } from "explainer/controls";
import { GRADE_WORDS, drawGrade, rankedGrades } from "explainer/grades";
import { Ignored, parseGradeList, parseIntegers } from "explainer/query";
import { createRankedList } from "explainer/ranked-list";

/**
 * A ranked list of graded results that the reader reorders and regrades (figure 2 and the
 * conventions figure), in the figure's shell, over state { grades (by document), order
 * (documents by rank), k }. Pressing a result moves it up one rank, the focus following it;
 * its menu sets its grade; the marker sets k. `titles` are the documents' titles; `columns`
 * are the [className, heading] pairs of the header row (which screen readers skip: each row
 * says it all); `cells(rank)` gives the spans a row shows after its rank, title and grade.
 * Returns { header, list (as createRankedList's), flash, draw(state, extra) }.
 */
export function createGradedList(shell, { titles, label, headerClass, columns, cells = () => [] }) {
  const { length: count, max_grade: maxGrade } = shell.limits.grades;
  const header = h("div", headerClass);
  header.setAttribute("aria-hidden", "true");
  for (const [cls, text] of columns) header.append(h("span", cls, text));
  const hint = createFlash();
  const gradeSelects = [];
  const list = createRankedList({
    count,
    label,
    maxK: shell.limits.k.max,
    buildRow(row, button, rank) {
      button.append(h("span", "rl-rank", String(rank)), h("span", "rl-title"), h("span", "grade"), ...cells(rank));
      const select = createGradeSelect(maxGrade, `Grade of the result at rank ${rank}`, (grade) => {
        const state = shell.state();
        const grades = state.grades.slice();
        grades[state.order[rank - 1]] = grade;
        shell.commit({ ...state, grades });
      });
      row.append(select);
      gradeSelects.push(select);
    },
    onActivate(rank) {
      if (rank === 1) {
        hint.flash("Rank 1 is already at the top.");
        return;
      }
      // Focus follows the moved result, at once, so that the next key press moves it again; only
      // for a reader whose focus was on it (a key, or a click that focused it): a script's click
      // moves no focus, and spares the browser the style work that focus asks for.
      const pressed = list.buttons[rank - 1];
      const hadFocus = pressed.getRootNode().activeElement === pressed;
      const state = shell.state();
      shell.commit({ ...state, order: promoted(state.order, rank) });
      if (hadFocus) list.buttons[rank - 2].focus({ preventScroll: true });
    },
    onCutoff(k) {
      shell.commit({ ...shell.state(), k });
    },
  });

  const drawn = []; // what each row shows, as last drawn
  return {
    header,
    list,
    flash: hint.flash,
    hint: hint.el,
    /**
     * Draw the rows of `state` and place k. `extra(i, grade)` gives what the figure adds to the
     * row at rank i + 1: { key, label, draw(button) }. A row is redrawn only when its document,
     * grade or `key` changed (a promote swaps two rows; the others stay as drawn).
     */
    draw(state, extra = () => ({})) {
      list.update(state.k);
      state.order.forEach((doc, i) => {
        const grade = state.grades[doc];
        const more = extra(i, grade);
        const key = `${doc} ${grade} ${more.key ?? ""}`;
        if (drawn[i] === key) return;
        drawn[i] = key;
        const button = list.buttons[i];
        list.rows[i].dataset.grade = String(grade);
        setText(button.querySelector(".rl-title"), titles[doc]);
        drawGrade(button.querySelector(".grade"), grade, maxGrade);
        const said = [`Rank ${i + 1}. Grade ${grade}, ${GRADE_WORDS[grade] ?? ""}.`, more.label];
        said.push(i ? "Press to move up." : "At the top.");
        list.describe(i + 1, said.filter(Boolean).join(" "));
        if (gradeSelects[i].value !== String(grade)) gradeSelects[i].value = String(grade);
        more.draw?.(button);
      });
    },
  };
}

/** The order after moving the result at `rank` (1-based, > 1) up one place. */
export function promoted(order, rank) {
  const next = order.slice();
  [next[rank - 2], next[rank - 1]] = [next[rank - 1], next[rank - 2]];
  return next;
}

/**
 * The URL keys of a graded list whose documents can move: `order` (documents by rank,
 * numbered from 1, each once) and `grades` (in rank order, as a reader writes them).
 * Documents move with their grades; `grades`, applied after `order`, sets each rank's grade.
 */
export function gradedListFields(limits) {
  const count = limits.order.length;
  return {
    order(text, state) {
      const what = `documents 1 to ${count}, each once`;
      const docs = parseIntegers(text, "order", 1, count, what);
      if (docs.length !== count) throw new Ignored(`order must list ${what}, separated by commas`);
      if (new Set(docs).size !== count) throw new Ignored(`order must list ${what}`);
      return { ...state, order: docs.map((d) => d - 1) };
    },
    grades(text, state) {
      const ranked = parseGradeList(text, "grades", limits.grades);
      const grades = state.grades.slice();
      state.order.forEach((doc, i) => (grades[doc] = ranked[i]));
      return { ...state, grades };
    },
  };
}

/** The `grades` and `order` query pairs of a graded list (order only once documents moved). */
export function gradedListQuery(state) {
  const pairs = [["grades", rankedGrades(state).join(",")]];
  if (state.order.some((doc, i) => doc !== i)) pairs.push(["order", state.order.map((d) => d + 1).join(",")]);
  return pairs;
}
