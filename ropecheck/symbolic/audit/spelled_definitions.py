r"""A step that is a definition written out: ``\mathcal{R}_m(x_m W_q + b_q) = \mathcal{R}_m q_m`` after ``q_m = x_m
W_q + b_q``.

A name whose definition uses a name given a value only in a condition (``b``, in "当 $b = [...]^\top$ 时") keeps no
value the audit reads (:mod:`.inline_conditions`), so a step with it is read with it free and cannot use what the
definition says. Yet the definition itself stands, whatever the condition gives the names in it: put in place of
the name as the step writes it, in brackets, it may make the two sides the same text. Then they are the same
value under every reading of every name, so the step is PROVED by that definition, and the reason names its line.
A display definition read as any other stands as text the same way, where a step that writes it out is left unread
through another name (a block-diagonal family drawn open-ended), while it is the definition in force.

A function at a sum or difference of names whose value the audit does not read (``g(x_m, x_n, m - n) = Re[...]``,
given beside the other functions of its display, or written with ``:=``, :mod:`.solution_forms`) is kept the same
way: a later step that writes that line again, call and body as they stand (``g(x_m, x_n, m - n) = Re[...]`` in
another section, "as above"), is that definition, PROVED by it -- only while nothing has defined the function again
and no name its body writes has been given a value since (:func:`redefined_since`; a parameter of the call, such as
``x_m`` of ``g(x_m, ...)``, is bound by the call and may be). An instance at other arguments (``g(x_m, x_n, 2)``) is
not the same text and stays as it was.

Design constraints: text in, text out. Only display definitions of such names are kept, not one opened as an
example, and only while nothing defines the name again (the caller checks). The name must be written in the step
as in its definition (the same spelling and subscript, not part of a longer name); the sides are compared after
the audit's own spelling rules (:func:`..readers.latex_syntax.normalize_latex`) with spaces dropped, a side that
is one bracket around everything compared without it. Anything short of the same text leaves the step as it was.
"""

from __future__ import annotations

import re

from ..readers.latex_syntax import normalize_latex
from ..readers.latex_text import skip_group

__all__ = ["as_defined", "defined_said", "redefined_since", "restated_said"]


def _spelled(name: str) -> re.Pattern[str]:
    """The name as written, not part of a longer name (``aq_m``, ``q_m'``) nor under a decoration or in a group
    (``\\tilde{q_m}`` is a name of its own)."""
    return re.compile(r"(?<![\\A-Za-z0-9{])" + re.escape(name) + r"(?![A-Za-z0-9_{'])")


#: what may follow the name, where it stands for its value: a transpose or a power of digits, else nothing raised
_RAISED_OK = re.compile(r"\s*\^\s*(?:\{\s*(?:T|\\top|\\intercal|-?\d+)\s*\}|T|\d)")
#: a decoration that makes a name of its own of what follows (``\bar h_t``, ``\hat{}`` written without braces)
_DECORATED = re.compile(
    r"\\(?:bar|hat|tilde|vec|dot|ddot|check|breve|acute|grave|mathring|overline|widehat|widetilde)\s*$"
)


def _stands_alone(text: str, at: re.Match[str]) -> bool:
    """Whether the name found ``at`` stands for its value there: not decorated, and raised, if at all, only by a
    transpose or a power (``q_m^{(1)}``, ``q_m^*``, ``q_m'`` may be names of their own)."""
    after = text[at.end() :]
    raised = after.lstrip().startswith(("^", "'"))
    return not _DECORATED.search(text[: at.start()]) and (not raised or _RAISED_OK.match(after) is not None)


def _plain(side: str) -> str:
    """``side`` as compared: normalized, no spaces, no braces around one letter or digit raised or lowered, one
    bracket around everything dropped."""
    flat = re.sub(r"([_^])\{(\w)\}", r"\1\2", re.sub(r"\s+", "", normalize_latex(side)))  # ^{T} is ^T
    while flat.startswith("(") and skip_group(flat, 0) == len(flat):
        flat = flat[1:-1]
    return flat


def as_defined(left: str, right: str, bodies: dict[str, tuple[str, int]]) -> tuple[str, int] | None:
    r"""The name (as written) and the line of the definition that, put in place of the name in brackets, makes the
    two sides of a step the same text; None where none does (or none is written in the step).

    Example:
        >>> bodies = {r"\mathbf{q}_m": (r"x_m W + b", 9)}
        >>> as_defined(r"R_m(x_m W + b)", r"R_m \mathbf{q}_m", bodies)
        ('\\mathbf{q}_m', 9)
        >>> as_defined(r"R_m(x_m W - b)", r"R_m \mathbf{q}_m", bodies) is None
        True
    """
    for name, (body, line) in bodies.items():
        spelled = _spelled(normalize_latex(name))
        sides = [normalize_latex(side) for side in (left, right)]
        if not all(_stands_alone(side, at) for side in sides for at in spelled.finditer(side)):
            continue
        bracketed = ("(" + normalize_latex(body) + ")").replace("\\", "\\\\")  # a template: its backslashes as written
        put = [spelled.sub(bracketed, side) for side in sides]
        if put != sides and _plain(put[0]) == _plain(put[1]):
            return name, line
    return None


def defined_said(name: str, line: int) -> str:
    """The reason of a step so proved.

    Example:
        >>> defined_said("q_m", 9).split(":")[0]
        'q_m put in place as its definition (line 9) writes it'
    """
    return (
        f"{name} put in place as its definition (line {line}) writes it: the two sides are the same text, so equal "
        "under every reading of every name"
    )


def _flat(text: str) -> str:
    """``text`` normalized, spaces dropped, braces around one letter or digit after ``_`` or ``^`` dropped."""
    return re.sub(r"([_^])\{(\w)\}", r"\1\2", re.sub(r"\s+", "", normalize_latex(text)))


def _arguments(call: str) -> set[str]:
    """The names a call binds: each argument flattened, and each letter of an argument that is a sum or difference."""
    open_ = call.find("(")
    inside = call[open_ + 1 : call.rfind(")")] if open_ >= 0 else ""
    out: set[str] = set()
    for arg in (_flat(a) for a in inside.split(",")):
        out.add(arg)
        if re.search(r"[-+]", arg):
            out |= set(re.findall(r"(?<![\\A-Za-z])[A-Za-z](?![A-Za-z])", arg))
    return out


def redefined_since(call: str, body: str, later: list[str]) -> bool:
    r"""Whether one of the names defined since the line ``call = body`` (``later``, as the definitions list them)
    is the function called or may be written in the body, other than a name the call binds. A name is taken as
    written wherever its text stands in the body (``x_m`` in ``W_qx_m``; a letter outside commands, a command whole):
    a doubt leaves the step as it was.

    Example:
        >>> call, body = "g(x_m, x_n, m - n)", r"Re[(W_qx_m)(W_kx_n)^* e^{i(m-n)\theta}]"
        >>> redefined_since(call, body, ["x_{m}", "c", "q_{m}", "f_{q}(x_{m}, m)"])
        False
        >>> redefined_since(call, body, [r"\theta"]), redefined_since(call, body, ["theta"])
        (True, True)
        >>> redefined_since(call, body, ["W_{q}"])
        True
        >>> redefined_since(call, body, ["g(x_m, x_n, m - n)"])
        True
    """
    function = _flat(call.split("(", 1)[0])
    bound = _arguments(call)
    flat = _flat(body)
    bare = re.sub(r"\\[A-Za-z]+", " ", flat)  # letters outside commands (\cos has no c)
    for name in later:
        spelled = _flat(name.split("(", 1)[0])
        if not spelled or spelled in bound:
            continue
        if spelled == function:
            return True
        command = "\\" + spelled.lstrip("\\")  # phi, as the definitions list \phi
        if re.search(re.escape(command) + r"(?![A-Za-z])", flat) or spelled in bare:
            return True
    return False


def restated_said(call: str, line: int) -> str:
    """The reason of a step that writes again a definition whose value is not read.

    Example:
        >>> restated_said("g(x_m, x_n, m - n)", 60).split(":")[0]
        'g(x_m, x_n, m - n) is defined at line 60 as this step writes it'
    """
    return (
        f"{call} is defined at line {line} as this step writes it: the step is that definition again, its value not "
        "read, so equal under every reading of every name"
    )
