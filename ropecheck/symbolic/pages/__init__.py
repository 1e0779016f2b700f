"""The proof pages: every theorem rendered as Markdown, HTML (MathML), JSON, terminal text and LaTeX.

:mod:`.render` renders proofs (pure functions, data in and text out), :mod:`.prose` the
theorems' prose with its inline and display math, :mod:`.latexdoc` every theorem as one LaTeX
document, and :mod:`.mathlines` breaks equations over lines so none runs off a phone's screen.

Design constraints: the pages import the engine (the proof objects they render), never a
reader, the audit or the Coq bridge.
"""

from . import latexdoc, mathlines, prose, render

__all__ = ["latexdoc", "mathlines", "prose", "render"]
