"""Which value a step gives a name the document identifies both as a 2-vector and as a complex number.

This literature writes ``q_m = [q_m^1 \\\\ q_m^2]``, says the 2-vectors are viewed as complex numbers,
``q_m = q_m^1 + i q_m^2``, and then uses ``q_m`` both ways: as a vector (``R(m\\theta) q_m``, ``q_m^T k_n``,
``\\langle q_m, k_n \\rangle``) and as a number (``q_m e^{im\\theta}``, ``Re[q_m k_n^*]``). The name keeps both values
(see :mod:`.complex_pairs`; the identification line defines nothing new): :func:`scope_by_use` gives each step the
value its own uses call for, read from how the step writes the name, never from what it means elsewhere --

- a vector use only (a matrix multiplies it -- written, a name whose value is a square matrix, something
  transposed, a name the document writes transposed that is no such column --, it is transposed, it sits inside
  ``\\langle , \\rangle``, it is written with an arrow, ``\\vec{z}``): the column, and the number's reading is not
  tried;
- a complex use only (conjugated, a product with ``e^{i...}`` or with a number written with i, inside Re or Im): the
  number, a written column beside it compared as its real and imaginary parts (see :mod:`.complex_pairs`);
- both: each use its own value, the complex uses written with a fresh name whose value is the number; where one
  use is both at once (``R q e^{ix}``), the number throughout, as for a complex use only;
- neither: the column, and the step is also read with the number; it is decided only where the readings that read
  agree.

The step's reason says which value was used and at which line the document states the identification.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any

import sympy

from ..readers.scope import Definition, Scope, domain_key
from .complex_pairs import still_paired

_PAIR_MATRIX_END = re.compile(r"(?:\\end\{[bpvBV]?matrix\}|\\end\{array\})\s*(?:\\[,;!]|\\cdot|\s)*$")
_PAIR_TRANSPOSED = re.compile(r"\s*\^\s*(?:\{\s*)?(?:T\b|\\top\b|\\intercal\b|\\mathsf\{T\}|\\mathrm\{T\})")
_PAIR_CONJUGATED = re.compile(r"\s*\^\s*(?:\{\s*)?(?:\*|\\ast\b|\\\*)")
_PAIR_PHASE_AFTER = re.compile(r"(?:\s|\\[,;!]|\\cdot)*(?:e\s*\^\s*\{[^{}]*(?<![A-Za-z\\])i|\\exp\b)")
_PAIR_PHASE_BEFORE = re.compile(r"(?:e\s*\^\s*\{[^{}]*(?<![A-Za-z\\])i[^{}]*\}|e\s*\^\s*i\b)(?:\s|\\[,;!]|\\cdot)*$")
_PAIR_PARTS_OPEN = re.compile(
    r"(?:\\(?:mathrm|operatorname|text|textrm|mathfrak)\s*\{\s*(?:Re|Im)\s*\}|\\Re\b|\\Im\b|(?<![A-Za-z\\])(?:Re|Im))"
    r"\s*(?:\\left|\\big|\\Big|\\bigg)?\s*[\[(]"
)
_PAIR_BARRED = re.compile(r"\\(?:overline|bar)\s*\{\s*$")
_PAIR_ARROWED = re.compile(r"\\(?:vec|overrightarrow)\s*\{\s*$")


def _occurrences(text: str, name: str) -> list[tuple[int, int]]:
    """Where ``text`` writes the name itself (``q_m`` or ``q_{m}``), not one of its entries (``q_m^1``)."""
    plain = name.replace("{", "").replace("}", "")
    base, _, sub = plain.partition("_")
    pattern = re.escape(base) + (r"_\s*(?:\{\s*" + re.escape(sub) + r"\s*\}|" + re.escape(sub) + ")" if sub else "")
    after = r"(?!\s*\^\s*\{?\s*\(?\d)(?![_\d])" + ("" if sub else r"(?![A-Za-z])")
    return [(m.start(), m.end()) for m in re.finditer(r"(?<![A-Za-z\\])" + pattern + after, text)]


def _groups(text: str, opener: re.Pattern[str]) -> list[tuple[int, int]]:
    """The spans of the groups ``opener`` opens (``Re[...]``), to their matching bracket."""
    spans = []
    for m in opener.finditer(text):
        depth = 0
        for j in range(m.end() - 1, len(text)):
            depth += text[j] in "[({"
            depth -= text[j] in "])}"
            if depth == 0:
                spans.append((m.end(), j))
                break
    return spans


def _angle_groups(text: str) -> list[tuple[int, int]]:
    """The spans of ``\\langle ... \\rangle``."""
    spans, opened = [], []
    for m in re.finditer(r"\\langle|\\rangle", text):
        if m.group() == "\\langle":
            opened.append(m.end())
        elif opened:
            spans.append((opened.pop(), m.start()))
    return spans


def _squeezed(name: str) -> str:
    return re.sub(r"[\s{}]", "", name).lstrip("\\")


def _factor_before(before: str) -> tuple[str, bool]:
    """The name of the factor that ends ``before`` (its call and its superscript taken off: ``R`` in
    ``R^T(m\theta)``), and whether that factor is transposed."""
    b, transposed = re.sub(r"(?:\\[,;!]|\\cdot|\s)*$", "", before), False
    for _ in range(3):
        if b.endswith(")"):
            depth = 0
            for j in range(len(b) - 1, -1, -1):
                depth += (b[j] == ")") - (b[j] == "(")
                if depth == 0:
                    b = b[:j].rstrip()
                    break
            else:
                return "", False
        sup = re.search(r"\^\s*(\{[^{}]*\}|\\[A-Za-z]+|[A-Za-z0-9*])$", b)
        if sup is not None:
            transposed = transposed or re.fullmatch(r"\{?\s*(?:T|\\top|\\intercal)\s*\}?", sup.group(1)) is not None
            b = b[: sup.start()].rstrip()
    name = re.search(r"(?<![A-Za-z\\])(\\?[A-Za-z]+(?:_\s*(?:\{[^{}]*\}|[A-Za-z0-9]))?)$", b)
    return (name.group(1) if name is not None else ""), transposed


def _matrix_before(before: str, scope: Scope) -> bool:
    """Whether a matrix ends just before the name: a written one, something transposed (``q^T k``), a name whose
    value is a square matrix (or a function whose value is), or a name the document writes transposed that is no
    column it defines."""
    if _PAIR_MATRIX_END.search(before):
        return True
    name, transposed = _factor_before(before)
    if transposed:
        return True
    if not name:
        return False
    key = _squeezed(name)
    for table in (scope.symbols, scope.functions):
        for k, d in table.items():
            if _squeezed(k) == key and isinstance(d.body, sympy.MatrixBase):
                return d.body.rows == d.body.cols > 1
    return key in {_squeezed(n) for n in scope.matrix_names}


def _uses_at(text: str, span: tuple[int, int], scope: Scope) -> tuple[list[str], list[str]]:
    """How ``text`` uses the name it writes at ``span``: (vector uses, complex uses), said in words."""
    start, end = span
    before, after = text[:start], text[end:]
    vector, complex_ = [], []
    if _PAIR_TRANSPOSED.match(after):
        vector.append("it is transposed")
    if any(a <= start < b for a, b in _angle_groups(text)):
        vector.append("it sits inside an inner product")
    if _matrix_before(before, scope):
        vector.append("a matrix multiplies it")
    if _PAIR_ARROWED.search(before) and after.lstrip().startswith("}"):
        vector.append("it is written with an arrow, as a vector")
    if _PAIR_CONJUGATED.match(after) or (_PAIR_BARRED.search(before) and after.lstrip().startswith("}")):
        complex_.append("it is conjugated")
    if _PAIR_PHASE_AFTER.match(after) or _PAIR_PHASE_BEFORE.search(before):
        complex_.append("a phase e^{i...} multiplies it")
    if any(a <= start < b for a, b in _groups(text, _PAIR_PARTS_OPEN)):
        complex_.append("it sits inside Re or Im")
    if _unit_group(after, forward=True) or _unit_group(before, forward=False):
        complex_.append("a complex number written with i multiplies it")
    return vector, complex_


def _unit_group(text: str, *, forward: bool) -> bool:
    """Whether a parenthesised group that writes a bare i (``(\\cos x + i \\sin x)``, ``(a + ib)``) opens ``text``
    (``forward``) or ends it: a complex number beside the name."""
    body = text.lstrip() if forward else text.rstrip()
    if not body or body[0 if forward else -1] != ("(" if forward else ")"):
        return False
    depth, order = 0, range(len(body)) if forward else range(len(body) - 1, -1, -1)
    for j in order:
        depth += (body[j] == "(") - (body[j] == ")") if forward else (body[j] == ")") - (body[j] == "(")
        if depth == 0:
            if not forward and re.search(r"[A-Za-z0-9}\]^_)]\s*$", body[:j]):
                return False  # R(m\theta) q: a call's argument, not a number beside the name
            group = body[: j + 1] if forward else body[j:]
            return re.search(r"(?<![A-Za-z\\_])(?<!_\{)i(?![A-Za-z])", group) is not None
    return False


def pair_uses(text: str, name: str, scope: Scope) -> tuple[list[str], list[str]]:
    """How ``text`` uses the name: (its vector uses, its complex uses), each said in words."""
    vector: list[str] = []
    complex_: list[str] = []
    for span in _occurrences(text, name):
        v, c = _uses_at(text, span, scope)
        vector += v
        complex_ += c
    return list(dict.fromkeys(vector)), list(dict.fromkeys(complex_))


@dataclass(frozen=True)
class PairReading:
    """A step as read with the names identified with complex numbers given their values: the scope, the two sides
    (a complex use written with a fresh name for the number where the step also uses the name as a vector) and a
    note saying which value each name took."""

    scope: Scope
    lhs: str
    rhs: str
    note: str


def _as_number_where_complex(text: str, name: str, fresh: str, scope: Scope) -> str:
    """``text`` with each complex use of the name written as ``fresh`` (the other uses kept)."""
    for span in reversed(_occurrences(text, name)):
        if _uses_at(text, span, scope)[1]:
            text = text[: span[0]] + fresh + text[span[1] :]
    return text


def _one_use_each(lhs: str, rhs: str, name: str, scope: Scope) -> bool:
    """Whether no single use of the name is both a vector use and a complex one (``R q e^{i x}``)."""
    return not any(all(_uses_at(t, span, scope)) for t in (lhs, rhs) for span in _occurrences(t, name))


def scope_by_use(lhs_tex: str, rhs_tex: str, scope: Scope) -> PairReading:
    """The step read with each name identified with a complex number given the value its uses call for."""
    text = lhs_tex + " = " + rhs_tex
    pairs, symbols, notes = list(scope.complex_pairs), dict(scope.symbols), []
    stars = set(scope.star_names)
    for n, (name, value, line) in enumerate(scope.complex_pairs):
        if not still_paired(scope, name, value) or not _occurrences(text, name):
            continue
        if not isinstance(symbols[name].body, sympy.MatrixBase):
            continue  # the number itself is its value here: read as it is
        vector, complex_ = pair_uses(lhs_tex, name, scope)
        v2, c2 = pair_uses(rhs_tex, name, scope)
        vector, complex_ = list(dict.fromkeys(vector + v2)), list(dict.fromkeys(complex_ + c2))
        column = _shown(symbols[name].body)
        mixed = bool(vector and complex_ and "\\varpi" not in text and _one_use_each(lhs_tex, rhs_tex, name, scope))
        if vector and (mixed or not complex_):
            pairs.remove((name, value, line))  # the number does not fit every use: its reading is not tried
        if mixed:
            fresh = f"\\varpi_{{{n + 1}}}"  # the number, at the uses that call for it
            symbols[f"varpi_{{{n + 1}}}"] = Definition("symbol", f"varpi_{{{n + 1}}}", value, (), str(value), line)
            pairs.append((f"varpi_{{{n + 1}}}", value, line))  # still stated: a column beside it read as its parts
            lhs_tex = _as_number_where_complex(lhs_tex, name, fresh, scope)
            rhs_tex = _as_number_where_complex(rhs_tex, name, fresh, scope)
            notes.append(
                f"{name} read as the column {column} where {', '.join(vector)} and as the complex number {value} "
                f"where {', '.join(complex_)}: the document identifies the two (line {line})"
            )
        elif vector and not complex_:
            notes.append(
                f"{name} read as the column {column}: {', '.join(vector)}; the document identifies it with the "
                f"complex number {value} (line {line}), which this use does not fit"
            )
        elif complex_:
            symbols[name] = Definition("symbol", name, value, (), f"{name} = {value}", line)
            stars.discard(domain_key(name))
            notes.append(
                f"{name} read as the complex number {value}, which the document identifies with its column "
                f"(line {line}): {', '.join(complex_)}"
            )
        else:
            notes.append(
                f"{name} read as the column {column} and as the complex number {value} the document identifies it "
                f"with (line {line}): decided only where the readings that read agree"
            )
    if not notes:
        return PairReading(scope, lhs_tex, rhs_tex, "")
    read = replace(scope, symbols=symbols, complex_pairs=tuple(pairs), star_names=frozenset(stars))
    return PairReading(read, lhs_tex, rhs_tex, "; ".join(notes))


def _shown(body: Any) -> str:
    """A column as (a, b)."""
    if isinstance(body, sympy.MatrixBase):
        return "(" + ", ".join(str(e) for e in body) + ")"
    return str(body)


__all__ = ["PairReading", "pair_uses", "scope_by_use"]
