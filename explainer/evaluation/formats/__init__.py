"""Reading qrels and runs in trec_eval's formats, from files, bytes, dicts or ranx objects.

Formats (whitespace-separated fields, one judgment or result per line):

- qrels: ``qid iter docid grade``; ``iter`` is ignored, ``grade`` is an integer.
- run: ``qid Q0 docid rank score tag``; ``Q0`` and ``rank`` are ignored, as trec_eval
  ignores them, and fields after ``tag`` too; ``score`` is a number.

Files may be gzipped (recognised by their first bytes, whatever their name). Blank lines
and lines starting with ``#`` are skipped, as trec_eval 10 skips them.

What trec_eval does, and so what happens here (``trec_eval`` 9.0.x and 10.0 source,
``get_trec_results.c`` and ``form_res_rels.c``):

- A query's results are ordered by score, highest first; equal scores are ordered by
  docid, compared byte by byte, the greater docid first (``comp_sim_docno``:
  ``strcmp(docid2, docid1)``). The rank column plays no part.
- A docid listed twice for one query makes trec_eval stop ("duplicate docs"), in a run
  and in qrels alike; ``pytrec_eval.parse_run`` and ``parse_qrel`` refuse it too. Here
  ``duplicates="error"`` (the default) does the same, with the file and both line
  numbers; ``"first"`` or ``"last"`` keeps one line and counts the others.
- A negative grade means "in the pool but not judged": such a document is neither
  relevant nor non-relevant, and counts as unjudged (``RELVALUE_UNJUDGED``).

Nothing read here is written anywhere, and no error message repeats a docid or a qid:
messages name the source, the line number and what was expected.

Everything is kept in flat numpy arrays (docids as one byte string with offsets, queries
as offsets into the lines), so that ten million results fit in a few hundred megabytes.
What a reader refuses (ids over 1 KiB, lines over 8 MiB, more lines than memory holds, and
the page's caps) is in ``limits``.

Modules, in the order a file goes through them: ``blocks`` (a source as blocks of lines),
``compressed`` (gzip), ``fast_path`` (pyarrow's reader for single-spaced blocks), ``fields``
(the exact reader's fields), ``numbers`` (grades and scores), ``collector`` (blocks joined),
``order`` (trec_eval's order, duplicates), ``lines`` (the ``Qrels`` and ``Run`` it gives);
``qrels`` and ``run`` are the two readers, ``dicts`` the dicts they take, ``errors`` and
``limits`` what they refuse, ``memory`` how they ask for it.
"""

from explainer.evaluation.formats.errors import InputError
from explainer.evaluation.formats.limits import Caps
from explainer.evaluation.formats.lines import Qrels, Run
from explainer.evaluation.formats.order import DUPLICATES
from explainer.evaluation.formats.qrels import read_qrels
from explainer.evaluation.formats.run import read_run

__all__ = ["DUPLICATES", "Caps", "InputError", "Qrels", "Run", "read_qrels", "read_run"]
