"""The grades the figures offer a document: 0 (not relevant) to ``MAX_GRADE``, as TREC's graded qrels.

The graded figures draw them (figure 2, the unjudged documents, the conventions, which measure),
and the workbench offers them to judge with, or more where a qrels file grades higher.
"""

from __future__ import annotations

MAX_GRADE = 3
