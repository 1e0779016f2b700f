"""The readers: a claim as typed, in SymPy syntax or LaTeX, read into SymPy, bounded, and decided.

:mod:`.sympy_syntax` and :mod:`.latex_syntax` (with :mod:`.latex_text`, LaTeX as text with its
columns, and :mod:`.latex_tree`, the parse built into expressions) read one side of a claim;
:mod:`.scope` holds the symbols' domains and a document's definitions; :mod:`.limits` the
bounds on size, nesting, exponents, matrices, work, time and memory; :mod:`.claim` is the
claim checker, which reads a claim with these and decides it with the engine. :mod:`.expectation` reads
an expectation by linearity; :mod:`.decorations` reads a decorated name a document defined as a name.

Design constraints: readers import the engine (:mod:`ropecheck.symbolic.engine`) and each
other, never the audit, the pages or the Coq bridge.
"""

from . import claim, latex_syntax, latex_text, latex_tree, limits, scope, sympy_syntax

__all__ = ["claim", "latex_syntax", "latex_text", "latex_tree", "limits", "scope", "sympy_syntax"]
