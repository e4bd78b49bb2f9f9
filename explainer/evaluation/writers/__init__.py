"""The evaluate command's outputs, one module per format: trec_eval's lines, CSV and JSON.

``trec_lines`` writes trec_eval's table as trec_eval prints it; ``csv_table`` the same values
as CSV, one value a row, at full precision; ``json_report`` the whole report (options, runs,
per-query values, means, the comparison and the verdict) as one JSON document, whose schema
the README gives ("The JSON output").
"""

FORMATS = ("trec", "json", "csv")
"""The formats of ``evaluate --format``: trec_eval's lines (the default), JSON, CSV."""


def table_name(measure) -> str:
    """The name a table prints a measure under: as it was asked for (``nDCG@10``, ``P_5`` for
    ``P.5``), else trec_eval's (``Measure.name``), which also keys its values."""
    return measure.written or measure.name
