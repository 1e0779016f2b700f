"""``A =: M``: a definition written with its colon on the right, the name on that side.

``M := A`` and ``A =: M`` say the same thing: M is A (``\\eqqcolon`` is the second spelled as a command). At the
end of a chain (``|f''(x)| \\le B =: M``) the relations before it are steps and the last one names their last
side. The chain is turned into the definition ``M := B`` the auditor reads as any other (:mod:`.steps`), which
lists a name already defined (or no name at all) as defining nothing, as it lists ``M := B`` then.

Design constraints: only the last relation of a chain, and only where its right side is one name the reader
takes for a definable head (a letter, maybe subscripted, or a call on plain names: ``R(s)``); anything else
(``A =: 2``, ``A =: B + C``) stays the step it was, UNREAD as a relation that is not an equality.
"""

from __future__ import annotations

from dataclasses import replace

from ..readers.scope import Scope
from .document import Link
from .reading import head

__all__ = ["COLON_RIGHT", "named_on_right"]

#: the relations that define their right side
COLON_RIGHT = ("=:", "\\eqqcolon")


def named_on_right(links: list[Link], scope: Scope) -> tuple[Link, Link] | None:
    """The name a chain's last ``=:`` defines and its value, as the pair ``(M, := B)``; None where it defines none.

    Example:
        >>> named = named_on_right([Link("x", 1), Link("y + 1", 1, "\\\\le"), Link("M", 1, "=:")], Scope())
        >>> named[0].text, named[1].text, named[1].relation
        ('M', 'y + 1', ':=')
    """
    if len(links) < 2 or links[-1].relation not in COLON_RIGHT or not links[-2].text.strip():
        return None
    name = links[-1]
    if head(name.text, scope) is None:
        return None
    value = replace(links[-2], relation=":=", line=name.line, end_line=name.end_line)
    return replace(name, relation=""), value
