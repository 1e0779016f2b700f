r"""The forms of complex arithmetic that write a bare ``i`` as the imaginary unit in a step.

In a text that also indexes with i (``\theta_i``, ``x_{2i}``) a bare ``i`` reads two ways, and a step is read
both ways (:func:`.latex_syntax.read_latex_side`). Some steps leave no doubt by their own form, as this
literature writes complex arithmetic:

* Euler's form: ``\cos X \pm i \sin X``, the ``i`` multiplying the sine of the argument the cosine beside it
  takes (``\cos m\theta + i\ \sin m\theta``, ``\cos(x) - i \cdot \sin(x)``, ``\cos(x) + \sin(x)\, i``);
* a real or imaginary part, or a conjugate: an ``i`` in the argument of ``\Re``, ``\mathrm{Re}``,
  ``\operatorname{Re}``, ``Re[...]`` (also Im), of ``\overline{...}``, ``\bar{...}`` or of a bracket raised to
  ``*`` (``(a - i b)^*``): these take complex values;
* a product of complex numbers: a bracket ``(A \pm iB)`` or ``(A \pm Bi)`` written next to another such bracket
  (``(a + bi)(c + di)``, ``(x_1 + iy_1)(x_2 - iy_2)``).

In each, the ``i`` stands where a complex number writes its unit: a factor that opens a term after a sign or a
bracket (``+ i b``, ``+ i(...)``), or closes it before a sign, a bracket or the end (``+ bi``, ``(ad + bc)i``).
The form reads every bare ``i`` of the step as the unit only where each of them stands in such a place (or in an
exponent of e) and none is an index: no ``i`` in a subscript (``\theta_i``), in a superscript other than an
exponent of e (``b^{2i/d}``, ``x^{(i)}``), in a trig function's argument (``\cos(i\omega)``), under a sum or a
product over i, as a later argument of a call (``f(x, i)``) or in a bracket after a name (``x[2i]``). A step that
writes i in any of those ways keeps both readings.

Design constraint: a pure function of the text of one step; the caller says whether the document gives i a value.
"""

from __future__ import annotations

import re

from .complex_sums import indexes_with_i
from .index_arguments import index_argument_at
from .latex_syntax import normalize_latex, subscripts_with_i
from .latex_text import GREEK, skip_group

__all__ = ["EULER_FORM", "PART_OR_CONJUGATE", "PRODUCT_OF_FORMS", "UNIT_FORMS", "said_by_form", "unit_form"]

#: the words that say which form reads a step's ``i`` as the unit (:func:`unit_form`)
EULER_FORM = "Euler's form cos x + i sin x"
PART_OR_CONJUGATE = "a real or imaginary part or a conjugate of a complex number"
PRODUCT_OF_FORMS = "a product of complex numbers (a + bi)(c + di)"
UNIT_FORMS = (EULER_FORM, PART_OR_CONJUGATE, PRODUCT_OF_FORMS)

_GROUP_RX = r"\{(?:[^{}]|\{(?:[^{}]|\{[^{}]*\})*\})*\}"
#: a command's argument (``\mathit{ZQEU}``, ``\text{Re}``): no letter of the formula
_WORD_ARGUMENT = re.compile(r"\\(?:mathit|mathrm|mathsf|text|textrm|operatorname|begin|end)\s*\{[^{}]*\}")
_SUBSCRIPT_AT = re.compile(r"_\s*(?:\{|\\[A-Za-z]+|[A-Za-z0-9])")
_SUPERSCRIPT_AT = re.compile(r"\^\s*(?:\{|\\[A-Za-z]+|[A-Za-z0-9*])")
#: the base of an exponent of e as :func:`.latex_syntax.normalize_latex` writes it
_E_BASE = re.compile(r"\\mathit\{ZQEU\}\s*$")
_TRIG_AT = re.compile(r"\\(?:sin|cos|tan|cot|sec|csc|sinh|cosh|tanh)(?![A-Za-z])")
#: a trig argument without brackets: the product of letters, Greek names and numbers that follows, with scripts
_PRODUCT_ARGUMENT = re.compile(
    r"(?:\s*(?:\d+|\\(?:"
    + "|".join(GREEK)
    + r")(?![A-Za-z])|[A-Za-z])(?:\s*[_^]\s*(?:"
    + _GROUP_RX
    + r"|[A-Za-z0-9]))*)+"
)
_BRACKET_AHEAD = re.compile(r"\s*(?:\\left\s*)?[({]")
#: ``\Re``, ``\mathrm{Re}``, ``\operatorname{Im}``, ``Re``: a part, then its bracket
_PART = re.compile(
    r"(?:\\(?:Re|Im)(?![A-Za-z])|\\(?:mathrm|operatorname|text|textrm)\s*\{\s*(?:Re|Im)\s*\}|(?<![\\A-Za-z])(?:Re|Im))"
    r"\s*(?:\\left\s*)?[(\[{]"
)
_CONJUGATE = re.compile(r"\\(?:overline|bar)\s*\{")
_STAR = re.compile(r"\s*\^\s*(?:\{\s*(?:\*|\\ast)\s*\}|\*|\\ast(?![A-Za-z]))")
#: ``x[2i]``, ``x_{m}[i]``: a bracket after a one-letter name or its subscript, holding an index
_INDEX_BRACKET = re.compile(r"(?:(?<![\\A-Za-z])[A-Za-z]|_\s*\{[^{}]*\})\s*\[([\sA-Za-z0-9+\-*/]*)\]")
_SIGN = re.compile(r"(?:[+\-]|\\pm(?![A-Za-z])|\\mp(?![A-Za-z]))\s*$")
_TERM_END = re.compile(r"\s*(?:$|[+\-)\]}=,&]|\\(?:right|rangle)(?![A-Za-z])|\\pm(?![A-Za-z])|\\mp(?![A-Za-z])|\\\\)")
_CDOT = re.compile(r"\\cdot(?![A-Za-z])\s*$")
#: the sign after a cosine, and the unit that may follow it (``+ i``, ``- i \cdot``)
_SIGN_THEN_UNIT = re.compile(r"\s*(?:[+\-]|\\pm(?![A-Za-z])|\\mp(?![A-Za-z]))\s*(i\s*(?:\\cdot(?![A-Za-z])\s*)?)?")


def _spans(text: str, rx: re.Pattern[str]) -> list[tuple[int, int]]:
    """Where each match of ``rx`` reaches, the bracket group it ends at included."""
    out = []
    for m in rx.finditer(text):
        end = m.end()
        if text[end - 1 : end] in ("{", "(", "["):
            close = skip_group(text, end - 1)
            end = close if close > 0 else len(text)
        out.append((m.start(), end))
    return out


def _inside(at: int, spans: list[tuple[int, int]]) -> bool:
    return any(a <= at < b for a, b in spans)


def _bare_i(text: str) -> list[tuple[int, str]]:
    """Each bare ``i`` (the letter in a run of letters, no command's name or argument) and its run."""
    masked = _spans(text, _WORD_ARGUMENT)
    out = []
    for run in re.finditer(r"(?<![\\A-Za-z])[A-Za-z]+", text):
        for k, ch in enumerate(run.group(0)):
            if ch == "i" and not _inside(run.start() + k, masked):
                out.append((run.start() + k, run.group(0)))
    return out


def _trig_arguments(text: str) -> list[tuple[str, int, int, str]]:
    """Each trig function and its argument: (the command, where the argument starts and ends, its text with
    brackets and spaces dropped)."""
    out = []
    for m in _TRIG_AT.finditer(text):
        ahead = _BRACKET_AHEAD.match(text, m.end())
        if ahead:
            end = skip_group(text, ahead.end() - 1)
            if end < 0:
                continue
            inner = re.sub(r"\\(?:left|right)(?![A-Za-z])", "", text[ahead.end() : end - 1])
            out.append((m.group(0), m.end(), end, re.sub(r"\s+", "", inner)))
            continue
        arg = _PRODUCT_ARGUMENT.match(text, m.end())
        if arg:
            out.append((m.group(0), m.end(), arg.end(), re.sub(r"\s+", "", arg.group(0))))
    return out


def _unit_place(text: str, at: int, run: str) -> bool:
    """Whether the ``i`` at ``text[at]`` (in the run of letters ``run``) stands where a complex number writes its
    unit: opening a term (after a sign, a bracket or a number, a factor after it) or closing one."""
    start = at - run.index("i") if run.count("i") == 1 else -1
    before = text[:at].rstrip()
    if start == at and (not before or re.search(r"[+\-(\[{=&\d]$|\\pm$|\\mp$", before)):
        return len(run) > 1 or re.match(r"\s*(?:\\cdot(?![A-Za-z])\s*)?[A-Za-z\\({]", text[at + 1 :]) is not None
    if start >= 0 and at == start + len(run) - 1 and _TERM_END.match(text, at + 1):
        return len(run) > 1 or bool(re.search(r"[A-Za-z0-9)\]}]$", _CDOT.sub("", before).rstrip()))
    return False


def _indexes(text: str, bare: list[tuple[int, str]]) -> bool:
    """Whether the step writes ``i`` as an index anywhere, or a bare ``i`` where the unit does not stand."""
    if subscripts_with_i(text) or indexes_with_i(text):
        return True
    raised = [(a, b) for a, b in _spans(text, _SUPERSCRIPT_AT) if not _E_BASE.search(text[:a])]
    of_e = [(a, b) for a, b in _spans(text, _SUPERSCRIPT_AT) if _E_BASE.search(text[:a])]
    of_e += _spans(text, re.compile(r"\\exp\s*(?:\\left\s*)?[({]"))
    trig = [(a, b) for _, a, b, _ in _trig_arguments(text)]
    brackets = [(m.start(1), m.end(1)) for m in _INDEX_BRACKET.finditer(text) if re.search(r"i", m.group(1))]
    for at, run in bare:
        if _inside(at, raised + trig + brackets + _spans(text, _SUBSCRIPT_AT)) or index_argument_at(text, at):
            return True
        if not _inside(at, of_e) and not _unit_place(text, at, run):
            return True
    return False


def _euler(text: str) -> bool:
    r"""Whether ``text`` writes ``\cos X \pm i \sin X`` (or ``\cos X \pm \sin(X)\, i``) with one argument X."""
    args = _trig_arguments(text)
    for name, _, end, arg in args:
        s = _SIGN_THEN_UNIT.match(text, end) if name == "\\cos" else None
        if s is None:
            continue
        for other, start, after, same in args:
            if other != "\\sin" or start - len(other) != s.end() or same != arg:
                continue
            if s.group(1) or re.match(r"\s*(?:\\cdot(?![A-Za-z])\s*)?i(?![A-Za-z])", text[after:]):
                return True
    return False


def _complex_bracket(inner: str) -> bool:
    """Whether ``inner`` (a bracket's content) is a sum of two terms or more, one with a bare ``i`` in the unit's
    place and one with none: ``a + bi``, ``x_1 - iy_1``, ``\\cos x + i \\sin x``."""
    depth, terms, last = 0, [], 0
    for k, ch in enumerate(inner):
        depth += ch in "([{"
        depth -= ch in ")]}"
        if depth == 0 and ch in "+-" and inner[:k].strip() and not _SIGN.search(inner[:k].rstrip()):
            terms.append(inner[last:k])
            last = k + 1
    terms.append(inner[last:])
    with_i = [bool(_bare_i(t)) for t in terms]
    return len(terms) > 1 and any(with_i) and not all(with_i)


def _product(text: str) -> bool:
    """Whether two brackets written next to each other each hold a complex number: ``(a + bi)(c + di)``."""
    groups = []
    for m in re.finditer(r"\((?!\s*\))", text):
        end = skip_group(text, m.start())
        if end > 0 and _complex_bracket(re.sub(r"\\(?:left|right)(?![A-Za-z])", "", text[m.start() + 1 : end - 1])):
            groups.append((m.start(), end))
    for _, end in groups:
        ahead = re.match(r"(?:\s|\\cdot(?![A-Za-z]))*(?:\\left\s*)?", text[end:])
        if any(start == end + (ahead.end() if ahead else 0) for start, _ in groups):
            return True
    return False


def _in_part_or_conjugate(text: str, bare: list[tuple[int, str]]) -> bool:
    """Whether a bare ``i`` stands in the argument of a real or imaginary part, or of a conjugate."""
    spans = _spans(text, _PART) + _spans(text, _CONJUGATE)
    for m in re.finditer(r"[)\]]", text):
        if _STAR.match(text, m.end()):
            opener = {")": "(", "]": "["}[m.group(0)]
            depth, k = 0, m.start()
            while k >= 0:
                depth += {m.group(0): 1, opener: -1}.get(text[k], 0)
                if depth == 0:
                    spans.append((k, m.end()))
                    break
                k -= 1
    return any(_inside(at, spans) for at, _ in bare)


def unit_form(step: str) -> str | None:
    r"""The form of complex arithmetic that writes each bare ``i`` of ``step`` as the imaginary unit (words), or
    None where none does or the step also writes i as an index (see the module).

    Example:
        >>> unit_form(r"(a + bi)(\cos x + i \sin x) = a\cos x - b\sin x + i(a\sin x + b\cos x)") == EULER_FORM
        True
        >>> unit_form(r"(a + bi)(c + di) = (ac - bd) + (ad + bc)i") == PRODUCT_OF_FORMS
        True
        >>> unit_form(r"\Re[(a + ib) \overline{(c + id)}] = ac + bd") == PART_OR_CONJUGATE
        True
        >>> unit_form(r"(x_i + i y_i)(\cos x + i \sin x) = 0"), unit_form(r"\cos(i w) + i \sin(i w) = 1")
        (None, None)
    """
    text = normalize_latex(step)
    bare = _bare_i(text)
    if not bare or _indexes(text, bare):
        return None
    if _euler(text):
        return EULER_FORM
    if _product(text):
        return PRODUCT_OF_FORMS
    if _in_part_or_conjugate(text, bare):
        return PART_OR_CONJUGATE
    return None


def said_by_form(note: str) -> bool:
    """Whether a reading's note or a verdict's reason says a form of complex arithmetic read the step's ``i``.

    Example:
        >>> said_by_form(f"read with i the imaginary unit (as in {EULER_FORM} in this step)"), said_by_form("")
        (True, False)
    """
    return any(f"(as in {form} in this step)" in note for form in UNIT_FORMS)
