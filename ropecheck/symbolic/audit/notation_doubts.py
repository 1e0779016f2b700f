"""Notation a decided step may have been read wrong by: a raised ``e`` where the document gives ``e`` a value, a
``\\log`` with no base written, a starred name the document gives a value the reader did not take.

* ``e^2 = 9`` after ``$e = 3$`` (a scale named e): the reader takes a raised e as Euler's number; the text may
  mean its own e. Either reading may decide the step, so it is not decided (:func:`raised_e_with_value`).
* ``\\log 100 = 2``: a log with no base is natural in mathematics, of base 10 or 2 elsewhere. A step is kept only
  where it has the same verdict with every one of those bases (:func:`unbased_logs`, :func:`with_log_base`), unless
  it writes e raised or ``\\exp`` beside the log (``\\log e^{x} = x``: natural by the text itself).
* ``i^2 + 1 = 5`` after ``$i = 2$``: the reader takes a bare i as the imaginary unit; the text gives the name i a
  value. A step is kept only where it has the same verdict with i that value (:func:`valued_i`, :func:`with_i_as`).
* ``(p + qi)(r + si) = ...`` read with i the unit by its form (:mod:`..readers.complex_forms`), in a text that
  also writes ``i = 2``: the form does not outweigh the value the text gives i, so the step is not decided
  (:func:`i_given_value`).
* ``\\sum_{i=0}^{1} e^{i m \\theta_i} = ...``: a sum over i whose terms raise e to a power with a bare i, the index
  or the imaginary unit. A step is kept unless, with the sum's index renamed and that i the unit, it reads and
  is decided the other way (:func:`bound_i_beside_unit`, :func:`with_index_renamed`).
* ``a(b + c) = ab + ac`` after ``$a(x) = x + 1$``: the step calls the function a and writes a bare, as a number
  multiplied (:func:`called_and_bare`); read either way the step says another thing, so it is not decided.
* ``\\sin\\theta^* = \\cos\\theta^*`` after ``$\\theta^* = \\pi/4$``: a starred name is read as a conjugate or as
  a name of its own, never with the value the text gives it; a counterexample gives it another value
  (:func:`starred_with_value`).

* ``\\cos(a - b)  (2) = \\cos a \\cos b + \\sin a \\sin b  (3)``: a number in brackets after a space, closing a side
  (a row), is an equation's number typed by hand or a factor; a step is kept only where it has the same verdict
  with such numbers dropped (:func:`spaced_numbers`, :func:`without_spaced_number`).

Design constraints: pure text; each only ever turns a verdict into UNDECIDED (the auditor re-reads a step with
a log's base written, and keeps the verdict only where every base gives it).
"""

from __future__ import annotations

import re

from ..readers.default_doubts import unbased_logs, with_log_base

__all__ = [
    "bound_i_beside_unit",
    "called_and_bare",
    "i_given_value",
    "raised_e_with_value",
    "spaced_numbers",
    "starred_with_value",
    "unbased_logs",
    "valued_i",
    "with_i_as",
    "with_index_renamed",
    "with_log_base",
    "without_spaced_number",
]

#: a raised e as written: ``e^{...}``, ``e^2`` (not ``\\mathrm{e}``, which is Euler's number by its spelling)
_RAISED_E = re.compile(r"(?<![\\A-Za-z])e\s*\^")
#: a starred name: ``\\theta^*``, ``b^{*}``, ``x^\\ast``
_STARRED = re.compile(r"(\\[A-Za-z]+|(?<![\\A-Za-z])[A-Za-z])\s*\^\s*(?:\{\s*(?:\*|\\ast)\s*\}|\*|\\ast(?![A-Za-z]))")


#: ``e = 3``, ``e := ...`` opening an equation: the document gives the name e a value
_E_GIVEN = re.compile(r"(?:^|[\s,;(\$])e\s*(?::=|=(?!=))")


def raised_e_with_value(text: str, before: str) -> bool:
    r"""Whether the step ``text`` raises a bare e while the math ``before`` it gives the name e a value.

    Example:
        >>> raised_e_with_value("e^2 = 9", "e = 3"), raised_e_with_value("e^{i x} = 1", "x = 0")
        (True, False)
    """
    return _RAISED_E.search(text) is not None and _E_GIVEN.search(before) is not None


def starred_with_value(text: str, before: str) -> str | None:
    r"""The first starred name of the step ``text`` that the math ``before`` it gives a value (``\theta^* = ...``
    opening an equation), as written; None where there is none.

    Example:
        >>> starred_with_value(r"\sin\theta^* = \cos\theta^*", r"\theta^* = \pi/4")
        '\\theta^*'
    """
    for m in _STARRED.finditer(text):
        name = re.escape(m.group(1))
        given = r"(?:^|[\s,;(\$])" + name + r"\s*\^\s*(?:\{\s*(?:\*|\\ast)\s*\}|\*|\\ast(?![A-Za-z]))\s*(?:=|:=)"
        if re.search(given, before):
            return m.group(1) + "^*"
    return None


#: ``i = 2``, ``i := k + 1`` opening an equation: the document gives the name i one value (not a list, not the unit)
_I_GIVEN = re.compile(r"(?:^|[\s,;(\$])i\s*(?::=|=(?!=))\s*(?P<value>[^=,;\n$]+?)\s*(?=$|[,;.\n$]|\\quad|\\text)")
#: a value that is the unit itself (``\sqrt{-1}``) or a list of values (``1, \dots``)
_UNIT_OR_LIST = re.compile(r"\\sqrt\s*\{?\s*-\s*1|\\[lc]?dots|\\ldots|\\in(?![A-Za-z])|\\le|<|>")
#: a bare i: not a letter of a word or command, not a subscript (``\theta_i``); a sum over i binds it
_BARE_I = re.compile(r"(?<![\\A-Za-z_])(?<!_\{)i(?![A-Za-z])")
_SUBSCRIPT_GROUP = re.compile(r"_\s*(?:\{[^{}]*\}|[A-Za-z0-9])")
_BOUND_I = re.compile(r"_\s*\{\s*i\s*(?:=|\\in)")


def valued_i(text: str, before: str) -> str | None:
    r"""The one value the math ``before`` the step ``text`` gives the name i, where the step writes a bare i (not in a
    subscript, not bound by a sum), or None.

    Example:
        >>> valued_i("i^2 + 1 = 5", "i = 2"), valued_i("i^2 = -1", r"i = \sqrt{-1}"), valued_i("x = 1", "i = 2")
        ('2', None, None)
    """
    if _BOUND_I.search(text) or not _BARE_I.search(_SUBSCRIPT_GROUP.sub(" ", text)):
        return None
    found = list(_I_GIVEN.finditer(before))
    value = found[-1].group("value").strip() if found else ""
    return value if value and not _UNIT_OR_LIST.search(value) else None


def i_given_value(math: str) -> str | None:
    r"""The last value the ``math`` of a document gives the name i (``i = 2``), other than the unit itself or a list
    of values (``i = 0, 1, \dots``); or None.

    Example:
        >>> i_given_value(r"\theta_i = b^{-2i/d}, \quad i = 2"), i_given_value(r"i = \sqrt{-1}")
        ('2', None)
        >>> i_given_value(r"i = 0, 1, \dots, d/2 - 1"), i_given_value("i = 1, ..., n")
        (None, None)
        >>> i_given_value(r"\sum_{i=1}^{n} x_i")
    """
    found = [m for m in _I_GIVEN.finditer(math) if not _LIST_GOES_ON.match(math, m.end())]
    values = [v for v in (m.group("value").strip() for m in found) if v and not _UNIT_OR_LIST.search(v)]
    return values[-1] if values else None


#: a list of values goes on after the first (``i = 0, 1, \dots``)
_LIST_GOES_ON = re.compile(r"\s*,\s*(?:\d|\\[lc]?dots|\\ldots|\.\.\.|…)")


def with_i_as(text: str, value: str) -> str:
    r"""``text`` with each bare i (outside subscripts) written as ``(value)``.

    Example:
        >>> with_i_as(r"e^{i \pi} + \theta_i = -1", "2")
        'e^{(2) \\pi} + \\theta_i = -1'
    """
    groups: list[str] = []

    def keep(m: re.Match[str]) -> str:
        groups.append(m.group(0))
        return f"\x00{len(groups) - 1}\x00"

    masked = _BARE_I.sub(f"({value})", _SUBSCRIPT_GROUP.sub(keep, text))
    return re.sub(r"\x00(\d+)\x00", lambda m: groups[int(m.group(1))], masked)


def called_and_bare(text: str, functions: list[str]) -> str | None:
    r"""The first of the document's ``functions`` (one letter or a command) that the step ``text`` both calls and
    writes bare, not called (a number multiplied?), or None.

    Example:
        >>> called_and_bare("a(b + c) = ab + ac", ["a"]), called_and_bare("a(b + c) = a(b) + 1", ["a"])
        ('a', None)
    """
    # Re and Im (``Re[z]``, ``\mathrm{Re}(z)``) are the parts of a number, not the letter R or I
    text = re.sub(r"\\(?:mathrm|operatorname|text|textrm)\s*\{\s*(?:Re|Im)\s*\}", " ", text)
    text = re.sub(r"(?<![A-Za-z\\])(?:Re|Im)(?=\s*(?:\\left\s*)?[\[(])", " ", text)
    for name in functions:
        if not re.fullmatch(r"[A-Za-z]|\\[A-Za-z]+", name):
            continue
        letter = re.escape(name) + (r"(?![A-Za-z])" if name.startswith("\\") else "")
        uses = list(re.finditer(rf"(?<![\\A-Za-z]){letter}(?!\s*[_'^])", text))
        called = [m for m in uses if re.match(r"\s*(?:\\left\s*)?\(", text[m.end() :])]
        if called and len(called) < len(uses):
            return name
    return None


#: e raised to a power that holds a bare i (``e^{i m \theta_i}``, ``\exp(i x)``)
_UNIT_IN_EXPONENT = re.compile(
    r"(?<![\\A-Za-z])e\s*\^\s*\{[^{}]*(?<![\\A-Za-z_])i(?![A-Za-z])"
    r"|\\exp\s*(?:\\left)?\s*\([^()]*(?<![\\A-Za-z_])i(?![A-Za-z])"
)


def bound_i_beside_unit(text: str) -> str | None:
    r"""A letter to rename the index of a sum (or product) over i in ``text`` to, where the text also raises e to a
    power with a bare i (the unit, or the index?); None where it does not.

    Example:
        >>> bound_i_beside_unit(r"\sum_{i=0}^{1} e^{i m \theta_i} = 2"), bound_i_beside_unit(r"\sum_{i=0}^{1} i = 1")
        ('u', None)
    """
    if not _BOUND_I.search(text) or not _UNIT_IN_EXPONENT.search(_SUBSCRIPT_GROUP.sub(" ", text)):
        return None
    return next((c for c in "uvwrs" if not re.search(rf"(?<![\\A-Za-z]){c}(?![A-Za-z])", text)), None)


def with_index_renamed(text: str, letter: str) -> str:
    r"""``text`` with each i in a subscript (``\theta_i``, ``\sum_{i=0}``) written ``letter``; a bare i stays.

    Example:
        >>> with_index_renamed(r"\sum_{i=0}^{1} e^{i m \theta_i}", "u")
        '\\sum_{u=0}^{1} e^{i m \\theta_u}'
    """
    return _SUBSCRIPT_GROUP.sub(lambda m: re.sub(r"(?<![\\A-Za-z])i(?![A-Za-z])", letter, m.group(0)), text)


#: ``... \\sin b  (3)``: a number in brackets after a space, closing the side, after an operand (not a command such
#: as ``\\sin (3)``, which takes it as its argument)
_SPACED_NUMBER = re.compile(r"(?<=[A-Za-z0-9)}\]])\s+\(\s*\d+(?:\.\d+)*\s*\)\s*$")


def spaced_numbers(sides: tuple[str, str]) -> bool:
    r"""Whether a side of a step ends with a number in brackets after a space (``b  (2)``), where it is not a
    command's argument.

    Example:
        >>> spaced_numbers((r"\cos(-a)", r"\cos a  (2)")), spaced_numbers((r"f(2)", r"\sin (2)"))
        (True, False)
    """
    return any(without_spaced_number(side) != side for side in sides)


def without_spaced_number(side: str) -> str:
    r"""The side without the number in brackets closing it after a space (read as an equation's number).

    Example:
        >>> without_spaced_number(r"\cos a  (2)")
        '\\cos a'
    """
    m = _SPACED_NUMBER.search(side)
    if m is None or re.search(r"\\[A-Za-z]+$", side[: m.start()]):
        return side
    return side[: m.start()]
