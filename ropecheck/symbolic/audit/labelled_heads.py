r"""Left sides that name a function by a word: upright with an index after the call, or raised on a letter.

Write-ups define the m-th row of attention's output as ``\mathrm{Attention}(Q, K, V)_m = ...`` and RoPE's map as
``f^{RoPE}(\mathbf{x}_m, m) = ...`` or, entry by entry, ``f^{RoPE}(\mathbf{x}_m, m)_j = ...``. The word set upright
is one name (never a product of its letters), and the word raised on the letter is part of the name (a label, never
a power: nobody raises a function to the power "RoPE"). A side that is all of such a call, with a name new to the
document that the right side does not use, says what the function gives: a definition in words (as
:func:`.names.word_call_head` has it for a word in italics), not a step. Its body is not read -- the arguments are
rows and entries the body names in its own way (``q_m`` for the m-th row of Q), which a call elsewhere would not
carry over with certainty -- so a later step that calls the name is not read, and the same side written again says
something of the name: a step, not read either.

A letter labelled by a word and called (``a_{\text{lin}}(s)``) is a function the reader reads as ``f(x)`` (see
:mod:`..readers.labelled_calls`): :func:`labelled_call_step` says in a step's reason how each such call was read.

Design constraints: pure functions of the text and the scope; the head found is a ``decorated`` one (a regular
expression that finds the name again, spelled as the definition spells it).
"""

from __future__ import annotations

import re

from ..readers.diag_lists import DIAGONAL_CALLS
from ..readers.labelled_calls import LABELLED_CALL, labelled_call_notes
from ..readers.latex_syntax import PLAIN_FUNCTIONS, normalize_latex
from ..readers.scope import Scope
from ..readers.sympy_syntax import suggest_function
from .reading import Head, applied
from .result import AuditStep

__all__ = ["labelled_call_head", "labelled_call_step"]

_UPRIGHT_WRAPPER = r"\\(?:text|textrm|mathrm|operatorname)"
#: a bracket of arguments (no bracket inside), then perhaps one index: ``(Q, K, V)_m``, ``(x_m, m)_{j}``
_CALL_TAIL = r"\s*\((?P<args>[^()]*\S[^()]*)\)\s*(?:_\s*(?P<index>\{\s*[A-Za-z]\s*\}|[A-Za-z]))?\s*$"
#: ``\mathrm{Attention}(Q, K, V)_m``: a word of two letters or more set upright, called, with an index after
_UPRIGHT_CALL = re.compile(r"^\s*" + _UPRIGHT_WRAPPER + r"\s*\{\s*(?P<word>[A-Za-z]{2,})\s*\}" + _CALL_TAIL)
#: ``f^{RoPE}(x_m, m)``, ``f^{RoPE}_q(x_m, m)``, ``f_q^{\mathrm{RoPE}}(...)_j``: a letter (not e or i) with a raised
#: word of three letters or more (``e^{im}(a + b)`` and ``x^{ab}(c)`` are powers)
_RAISED_CALL = re.compile(
    r"^\s*(?P<letter>[A-DF-HJ-Za-df-hj-z])\s*(?:_\s*(?P<sub1>\{\s*[A-Za-z0-9]+\s*\}|[A-Za-z0-9]))?\s*\^\s*\{\s*"
    r"(?:" + _UPRIGHT_WRAPPER + r"\s*\{\s*(?P<label1>[A-Za-z]{3,})\s*\}|(?P<label2>[A-Za-z]{3,}))\s*\}"
    r"\s*(?:_\s*(?P<sub2>\{\s*[A-Za-z0-9]+\s*\}|[A-Za-z0-9]))?" + _CALL_TAIL
)


def _raised_name_rx(m: re.Match[str]) -> str:
    """The name ``f^{RoPE}_q`` as a later text may spell it: the subscript before or after the raised word, braced
    or not, the word upright or not; then the bracket of its call."""
    label = m.group("label1") or m.group("label2")
    raised = r"\^\s*\{\s*(?:" + _UPRIGHT_WRAPPER + r"\s*\{\s*" + label + r"\s*\}|" + label + r")\s*\}"
    sub = (m.group("sub1") or m.group("sub2") or "").strip("{} ")
    if not sub:
        return r"(?<![\\A-Za-z])" + m.group("letter") + r"\s*" + raised + r"\s*(?:\\left\s*)?\("
    sub_rx = r"_\s*(?:\{\s*" + re.escape(sub) + r"\s*\}|" + re.escape(sub) + r"(?![A-Za-z0-9]))"
    either = rf"(?:{sub_rx}\s*{raised}|{raised}\s*{sub_rx})"
    return r"(?<![\\A-Za-z])" + m.group("letter") + r"\s*" + either + r"\s*(?:\\left\s*)?\("


def labelled_call_head(tex: str, body: str, scope: Scope) -> Head | None:
    r"""What ``\mathrm{Attention}(Q, K, V)_m = ...`` or ``f^{RoPE}(x_m, m)_j = ...`` defines in words (see the module's
    docstring), or None: the side is no such call, the name is one the document or the reader knows, or the right
    side uses it (an equation about the function).

    An upright word needs the index after the call (without it the reader reads the call, ``\text{sim}(q, k)``); a
    raised word needs three letters or more, a letter other than e and i under it, and two arguments or more.

    Example:
        >>> found = labelled_call_head(r"\mathrm{Attention}(Q, K, V)_m", r"\frac{a}{b}", Scope())
        >>> bool(re.search(found.key, r"\text{Attention}(Q, K, V)_n")), bool(re.search(found.key, "Attention(Q)"))
        (True, False)
        >>> found = labelled_call_head(r"f^{RoPE}_q(\mathbf{x}_m, m)", r"R_m x_m", Scope())
        >>> bool(re.search(found.key, r"f_{q}^{RoPE}(x_n, n)")), bool(re.search(found.key, r"f^{RoPE}(x_n, n)"))
        (True, False)
        >>> labelled_call_head(r"\mathrm{Attention}(Q, K, V)", "a", Scope()) is None
        True
        >>> labelled_call_head(r"f^{RoPE}(x, m)", r"2 f^{RoPE}(x, m)", Scope()) is None
        True
        >>> [labelled_call_head(t, "a", Scope()) for t in (r"e^{imt}(a, b)", r"y^{abc}(x)", r"y^{ab}(x, z)")]
        [None, None, None]
    """
    text = normalize_latex(tex)
    upright = _UPRIGHT_CALL.match(text)
    if upright is not None:
        word = upright.group("word")
        known = [*PLAIN_FUNCTIONS, *DIAGONAL_CALLS, "Re", "Im", *scope.functions]
        if upright.group("index") is None or word in known or suggest_function(word, known) or scope.defines(word):
            return None  # a known function, or a name close to one (a slip, which the reader names)
        rx = _UPRIGHT_WRAPPER + r"\s*\{\s*" + word + r"\s*\}\s*(?:\\left\s*)?\("
    else:
        raised = _RAISED_CALL.match(text)
        if raised is None or (raised.group("sub1") and raised.group("sub2")) or "," not in raised.group("args"):
            return None  # one argument: a power times a bracket (y^{abc}(x)) reads as well as a call
        rx = _raised_name_rx(raised)
    if re.search(rx, normalize_latex(body)):
        return None  # f^{RoPE}(x) = 2 f^{RoPE}(x) - f^{RoPE}(x): an equation about the function
    return Head("decorated", rx)


def labelled_call_step(s: AuditStep, text: str, scope: Scope) -> None:
    r"""How the step's labelled calls (``a_{\text{lin}}(s)``) were read, said first in its reason (a step not read
    says nothing of them)."""
    compact = normalize_latex(text)
    if s.status == "UNREAD" or not LABELLED_CALL.search(compact):
        return
    called = {f.func.__name__ for side in (s.lhs, s.rhs) for f in applied(side)}
    notes = labelled_call_notes(compact, scope, called)
    if notes:
        s.reason = "; ".join(x for x in ("; ".join(notes), s.reason) if x)
