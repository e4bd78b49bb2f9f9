"""The workbench page's data are the evaluation core's.

(values.js, the workbench's numbers with what-if changes, is checked against trec_eval in
Node: tests/js/workbench_values.test.mjs, with tests/js/workbench_values_oracle.py.)
"""

from __future__ import annotations

from explainer.evaluation import golden, read_qrels, read_run
from explainer.workbench.view import Workbench


def test_golden_files_read_as_the_evaluation_reads_them():
    # The page's data are the evaluation core's: the same readers, no copy of the files.
    paths = golden.paths()
    assert read_run(paths["baseline"]).qids == Workbench.golden().evaluated.qids
    assert read_qrels(paths["qrels"]).n_queries == 100
