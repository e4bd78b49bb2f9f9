"""A read error: which source, which line, and what was expected there."""

from __future__ import annotations

from explainer.evaluation.escaping import escaped


class InputError(ValueError):
    """Input that cannot be read: says which source, which line, and what was expected.

    ``source`` names the file (or ``"qrels"``/``"run"`` for data given in memory), ``line``
    is 1-based (``None`` when the problem is not one line's), ``expected`` says what the
    line should hold. The message never repeats a docid or a qid, and the file's name is
    shown with its control and bidi characters escaped.
    """

    def __init__(self, source: str, line: int | None, expected: str):
        self.source = source
        self.line = line
        self.expected = expected
        where = f"{escaped(source)}, line {line}" if line is not None else escaped(source)
        super().__init__(f"{where}: {expected}")
