"""A measure's written name read, in trec_eval's spelling or ir_measures': ``parse("P.5,10")``, ``parse("nDCG@10")``.

``parse(text)`` gives the measures a name asks for, each a ``Named`` (its family's key in
``explainer.catalog.measures`` and its parameters), and the name to print it under:

- trec_eval's ``-m`` names, case-sensitive as trec_eval's are: a family (``map``, ``P``, with its
  default parameters), a family and its parameters after a dot (``P.5,10``, ``iprec_at_recall.0.5``,
  ``utility.2,-1,0,0``, ``ndcg.1=0,2=1``, ``rbp.p=0.8``), or a nickname (``official``, ``set``,
  ``all_trec``); printed as trec_eval prints them (``P_5``, ``iprec_at_recall_0.50``,
  ``utility_2,-1,0,0``). trec_eval's printed names of one cutoff or level are read back too (``P_10``, ``ndcg_cut_10``,
  ``iprec_at_recall_0.50``).
- ir_measures' names, ``Name(param=value, ...)@at``, case-sensitive: ``nDCG@10``,
  ``nDCG(dcg='exp-log2')@10``, ``P(rel=2)@10``, ``R@100``, ``AP``, ``AP@100``, ``RR@10``,
  ``Judged@10``, ``IPrec@0.5``, ``SetF(beta=2)``; printed as written.
- our own: a catalog key or alias with ``@k`` (``precision@10``, ``hit_rate@5``, ``mrr``), any
  case, and NDCG's convention after a colon (``ndcg@10:exponential-list``); printed as trec_eval
  prints the family where it has one (``P_10``), else as written.

Bad names raise ``ValueError`` with one line that says what was expected.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from explainer.catalog.conventions import BY_KEY as CONVENTIONS
from explainer.catalog.conventions import DEFAULT_CONVENTION
from explainer.catalog.measures import BY_KEY, BY_TREC_EVAL, FAMILIES, NICKNAMES, NOT_TAKEN, Family

MAX_NAME = 200
"""Longer names are refused: no measure's name comes near it."""

MAX_PARAMETERS = 100
"""At most this many parameters in one name (trec_eval's own defaults have at most 11)."""


@dataclass(frozen=True)
class Named:
    """One measure a name asks for: its family's ``key``, its parameters, and the name to print.

    ``k`` is the cutoff of a family with cutoffs; ``level`` the recall level or multiple of R of
    a family with levels; ``values`` trec_eval's numbers for a family with values (utility's
    four weights, set_F's beta, 11pt_avg's levels, relstring's length), empty for the defaults;
    ``pairs`` trec_eval's ``name=number`` pairs (``(("1", 0.0), ("2", 1.0))`` as gains,
    ``(("p", 0.8),)`` for rbp), empty for the defaults. ``rel`` is ir_measures' ``rel``, the
    lowest relevant grade for this measure alone (None: the evaluation's); ``judged_only``
    ir_measures' ``judged_only`` (unjudged results left out, as trec_eval's ``-J`` does for
    all); ``convention`` the NDCG convention of an ``ndcg`` key. ``printed`` is the name a
    table prints it under; ``scheme`` says whose spelling it was written in: ``trec_eval``,
    ``ir_measures`` or ``ours``.
    """

    key: str
    k: int | None = None
    level: float | None = None
    values: tuple[float, ...] = ()
    pairs: tuple[tuple[str, float], ...] = ()
    rel: int | None = None
    judged_only: bool = False
    convention: str = DEFAULT_CONVENTION
    printed: str = ""
    scheme: str = "trec_eval"

    @property
    def family(self) -> Family:
        """The catalog's row."""
        return BY_KEY[self.key]


def parse(text: str) -> tuple[Named, ...]:
    """The measures ``text`` names, in trec_eval's or ir_measures' spelling, or ours (see the module)."""
    if not isinstance(text, str):
        raise ValueError(f"a measure's name must be text, got {text!r}")
    name = text.strip()
    if not name or len(name) > MAX_NAME or not name.isprintable():
        raise ValueError(f"a measure's name must be 1 to {MAX_NAME} printable characters, got {text[:MAX_NAME]!r}")
    if name in NICKNAMES:
        return nickname(name)
    if name in NOT_TAKEN:
        raise ValueError(
            f"{name} names trec_eval's preference or qrels_jg measures, which this evaluation does not read"
        )
    if "@" in name or "(" in name or ":" in name:
        return (_at_name(name),)
    found = _trec_eval_name(name)
    if found is not None:
        return found
    found = _bare_name(name)
    if found is not None:
        return found
    raise ValueError(
        f"unknown measure {name!r}: expected a trec_eval name (map, P.5,10, ndcg_cut.10, all_trec ...) "
        "or an ir_measures name (AP, P@10, nDCG@10, RR@10, Judged@10 ...)"
    )


def nickname(name: str) -> tuple[Named, ...]:
    """The members of trec_eval's nickname ``name``, each family with its defaults, in trec_eval's order."""
    members = set(NICKNAMES[name])
    return tuple(m for f in FAMILIES if f.trec_eval in members for m in _defaults(f))


# -- trec_eval's names ------------------------------------------------------------------------


def _trec_eval_name(name: str) -> tuple[Named, ...] | None:
    """``family``, ``family.params`` or the printed ``family_param``; None when no family is named."""
    if name in BY_TREC_EVAL:
        return _defaults(BY_TREC_EVAL[name])
    stem, dot, params = name.partition(".")
    if dot and stem in BY_TREC_EVAL:
        return _with_params(BY_TREC_EVAL[stem], params)
    # A printed name: the longest family name that the text starts with, then "_" and its parameter.
    for printed in sorted(BY_TREC_EVAL, key=len, reverse=True):
        family = BY_TREC_EVAL[printed]
        rest = name[len(printed) + 1 :]
        if name.startswith(printed + "_") and family.params in ("cutoffs", "levels") and "," not in rest:
            return _with_params(family, rest)
    wrong_case = {f.lower(): f for f in BY_TREC_EVAL}.get(stem.lower())
    if wrong_case and (dot or not _our_name(stem)):
        raise ValueError(f"unknown measure {name!r}: trec_eval's names are case-sensitive; did you mean {wrong_case}?")
    return None


def _defaults(family: Family) -> tuple[Named, ...]:
    if family.params == "cutoffs":
        if not family.trec_eval_params:
            raise ValueError(f"{family.key} needs a cutoff, as in {family.key}@10")
        return tuple(_trec(family, k=int(k)) for k in family.trec_eval_params)
    if family.params == "levels":
        return tuple(_trec(family, level=float(x)) for x in family.trec_eval_params)
    return (_trec(family),)


def _trec(family: Family, k=None, level=None, values=(), pairs=(), raw: str = "") -> Named:
    stem = family.trec_eval or family.key
    if k is not None:
        printed = f"{stem}_{k}"
    elif level is not None:
        printed = f"{stem}_{level:3.2f}"
    else:
        printed = f"{stem}_{raw}" if raw else stem
    return Named(family.key, k=k, level=level, values=values, pairs=pairs, printed=printed, scheme="trec_eval")


def _with_params(family: Family, params: str) -> tuple[Named, ...]:
    where = f"{family.trec_eval}.{params}"
    if not family.params:
        raise ValueError(f"{family.trec_eval} takes no parameters, got {where!r}")
    parts = params.split(",")
    if not params or "" in parts or len(parts) > MAX_PARAMETERS:
        raise ValueError(f"{where!r}: expected 1 to {MAX_PARAMETERS} comma-separated parameters after the dot")
    if family.params == "cutoffs":
        ks = [_integer(p, where) for p in parts]
        if len(set(ks)) < len(ks):
            raise ValueError(f"{where!r}: a cutoff is given twice")
        return tuple(_trec(family, k=k) for k in sorted(ks))
    if family.params == "levels":
        levels = [_number(p, where) for p in parts]
        if len(set(levels)) < len(levels):
            raise ValueError(f"{where!r}: a level is given twice")
        return tuple(_trec(family, level=x) for x in sorted(levels))
    if family.params == "values":
        values = tuple(_number(p, where) for p in parts)
        if family.key == "utility" and len(values) != 4:
            raise ValueError(
                f"{where!r}: utility takes 4 weights (relevant and non-relevant returned, then not returned)"
            )
        if family.key in ("set_f", "relstring") and len(values) != 1:
            raise ValueError(f"{where!r}: {family.trec_eval} takes one number")
        return (_trec(family, values=values, raw=params),)
    pairs = []
    for p in parts:
        left, eq, right = p.partition("=")
        if not eq or not left or "=" in right:
            raise ValueError(f"{where!r}: expected name=number pairs, as in {family.trec_eval}.1=0,2=1")
        pairs.append((left, _number(right, where)))
    return (_trec(family, pairs=tuple(pairs), raw=params),)


def _integer(text: str, where: str) -> int:
    if not re.fullmatch(r"\+?\d{1,9}", text) or int(text) < 1:
        raise ValueError(f"{where!r}: a cutoff must be a whole number from 1 to 999999999, got {text!r}")
    return int(text)


def _number(text: str, where: str) -> float:
    if not re.fullmatch(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?", text):
        raise ValueError(f"{where!r}: expected a number, got {text!r}")
    value = float(text)
    if value != value or abs(value) == float("inf"):
        raise ValueError(f"{where!r}: expected a finite number, got {text!r}")
    return value


# -- ir_measures' names and ours --------------------------------------------------------------

_IR_AT = {f.ir_measures: f for f in FAMILIES if f.ir_measures and f.params in ("cutoffs", "levels")}
_IR_BARE = {f.ir_measures: f for f in FAMILIES if f.ir_measures and f.params not in ("cutoffs", "levels")}
_IR_BARE.update({"MAP": BY_KEY["ap"], "MRR": BY_KEY["rr"], "BPref": BY_KEY["bpref"], "RPrec": BY_KEY["rprec"]})
_IR_AT.update({"NDCG": BY_KEY["ndcg"], "Precision": BY_KEY["precision"], "Recall": BY_KEY["recall"]})
_IR_AT.update({"MAP": BY_KEY["map_cut"], "MRR": BY_KEY["rr_cut"]})
_IR_BARE["NDCG"] = BY_KEY["ndcg_uncut"]

_IR_PARAMETERS = {
    # What each ir_measures parameter may be, by its name (ir_measures/measures/*.py SUPPORTED_PARAMS).
    "rel": int,
    "judged_only": bool,
    "dcg": str,
    "gains": dict,
    "beta": float,
    "relative": bool,
}

_OURS = {name.lower(): f for f in FAMILIES for name in (f.trec_eval or f.key, f.ir_measures or f.key)}
_OURS.update({name.lower(): f for f in FAMILIES for name in (f.key, *f.aliases)})  # our keys win: ndcg is NDCG@k


def _our_name(stem: str) -> Family | None:
    return _OURS.get(stem.lower())


def _bare_name(name: str) -> tuple[Named, ...] | None:
    family = _IR_BARE.get(name)
    if family is not None:
        return (Named(family.key, printed=name, scheme="ir_measures"),)
    if name in _IR_AT:
        raise ValueError(f"measure {name!r}: ir_measures' {name} needs @, as in {name}@10")
    family = _our_name(name)
    if family is None:
        return None
    if family.cut:
        if not family.trec_eval_params:
            raise ValueError(f"measure {name!r} needs a cutoff, as in {family.key}@10")
        return tuple(Named(family.key, k=int(k), printed=_ours_printed(family, k), scheme="ours")
                     for k in family.trec_eval_params)  # fmt: skip
    if family.params == "levels":
        return _defaults(family)
    return (Named(family.key, printed=_ours_printed(family, None), scheme="ours"),)


def _ours_printed(family: Family, k) -> str:
    stem = family.trec_eval or family.key
    return f"{stem}_{k}" if k is not None else stem


_AT_NAME = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)(\(.*\))?(?:@([0-9.]+))?(?::([a-z-]+))?")


def _at_name(name: str) -> Named:
    match = _AT_NAME.fullmatch(name)
    if not match:
        raise ValueError(
            f"unknown measure {name!r}: expected Name@k or Name(param=value)@k, as in nDCG@10, P(rel=2)@10"
        )
    stem, arguments, at, convention = match.groups()
    params = _ir_arguments(arguments, name) if arguments else {}
    ir = stem in _IR_AT or stem in _IR_BARE
    if ir and convention:
        raise ValueError(f"measure {name!r}: a convention after ':' goes with our ndcg@k, not ir_measures' nDCG")
    if at is not None:
        family = _IR_AT.get(stem) if ir else _our_name(stem)
        if family is None and ir:
            raise ValueError(f"measure {name!r}: ir_measures' {stem} takes no @")
        if family is not None and not (family.cut or family.params == "levels"):
            # ours as ir_measures' AP@k and RR@k: ap@10 is map_cut's AP@10, rr@10 RR@10
            family = _IR_AT.get(family.ir_measures or "")
            if family is None:
                raise ValueError(f"measure {name!r}: {stem} takes no @k")
    else:
        family = _IR_BARE.get(stem) if ir else _our_name(stem)
        if family is None and ir:
            raise ValueError(f"measure {name!r}: ir_measures' {stem} needs @, as in {stem}@10")
    if family is None:
        raise ValueError(
            f"unknown measure {name!r}: expected an ir_measures name (P@10, nDCG@10, AP, RR@10, Judged@10 ...) "
            "or one of ours (precision@10, ndcg@10, hit_rate@10 ...)"
        )
    if not ir and at is None and (family.cut or family.params == "levels"):
        raise ValueError(f"measure {name!r} needs a cutoff, as in {family.key}@10")
    k = level = None
    if at is not None:
        if family.cut:
            k = _integer(at, name)
        else:
            level = _number(at, name)
    named = {"key": family.key, "k": k, "level": level, "printed": name, "scheme": "ir_measures" if ir else "ours"}
    if not ir:
        if params:
            raise ValueError(f"measure {name!r}: our names take no (parameters); use ir_measures' spelling")
        if convention:
            if family.key != "ndcg":
                raise ValueError(f"measure {name!r}: only ndcg@k takes a convention after ':'")
            if convention not in CONVENTIONS:
                raise ValueError(f"measure {name!r}: the convention must be one of {', '.join(CONVENTIONS)}")
            named["convention"] = convention
        else:
            named["printed"] = _ours_printed(family, k) if family.trec_eval else name
        return Named(**named)
    return Named(**_ir_params(family, params, named, name))


def _ir_arguments(arguments: str, name: str) -> dict:
    """``(rel=2, dcg='exp-log2')`` as a dict, read as Python literals (never evaluated)."""
    try:
        call = ast.parse(f"f{arguments}", mode="eval").body
    except SyntaxError:
        call = None
    if not isinstance(call, ast.Call) or call.args or any(k.arg is None for k in call.keywords):
        raise ValueError(f"measure {name!r}: parameters go as (name=value, ...), as in P(rel=2)@10")
    out = {}
    for keyword in call.keywords:
        try:
            out[keyword.arg] = ast.literal_eval(keyword.value)
        except ValueError:
            raise ValueError(f"measure {name!r}: {keyword.arg}'s value must be a literal") from None
    return out


def _ir_params(family: Family, params: dict, named: dict, name: str) -> dict:
    for key, value in params.items():
        wanted = _IR_PARAMETERS.get(key)
        wanted = (int, float) if wanted is float else wanted
        if wanted is None or not isinstance(value, wanted) or (wanted is int and isinstance(value, bool)):
            known = ", ".join(_IR_PARAMETERS)
            raise ValueError(f"measure {name!r}: parameter {key}={value!r} is not one we take ({known})")
    if "rel" in params:
        if not family.relevance_level or params["rel"] < 1:
            raise ValueError(f"measure {name!r}: rel must be a grade >= 1, for a measure the relevance level moves")
        named["rel"] = params["rel"]
    if params.get("judged_only"):
        named["judged_only"] = True
    if "dcg" in params:
        if family.key not in ("ndcg", "ndcg_uncut") or params["dcg"] not in ("log2", "exp-log2"):
            raise ValueError(f"measure {name!r}: dcg is nDCG's, 'log2' or 'exp-log2'")
        if params["dcg"] == "exp-log2":
            if family.key != "ndcg":
                raise ValueError(f"measure {name!r}: dcg='exp-log2' needs a cutoff, as in nDCG(dcg='exp-log2')@10")
            named["convention"] = "exponential-judged"
    if "gains" in params:
        gains = params["gains"]
        if family.key not in ("ndcg", "ndcg_uncut") or not all(
            isinstance(g, int) and isinstance(v, (int, float)) for g, v in gains.items()
        ):
            raise ValueError(f"measure {name!r}: gains is nDCG's, a dict of grade to gain")
        if family.key == "ndcg":
            raise ValueError(f"measure {name!r}: custom gains go with the uncut nDCG (trec_eval's ndcg)")
        named["pairs"] = tuple((str(g), float(v)) for g, v in sorted(gains.items()))
    if "beta" in params:
        if family.key != "set_f":
            raise ValueError(f"measure {name!r}: beta is SetF's")
        named["values"] = (float(params["beta"]),)
    if "relative" in params:
        if family.key != "set_p":
            raise ValueError(f"measure {name!r}: relative is SetP's")
        if params["relative"]:
            named["key"] = "set_relative_p"
    return named
