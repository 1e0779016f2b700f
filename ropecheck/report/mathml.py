"""Math for the reports: one SymPy expression, rendered as LaTeX (Markdown) and MathML (HTML).

Browsers render MathML natively, so the HTML report shows math with no script and no
network; GitHub renders the ``$$…$$`` LaTeX in the Markdown pages.
"""

from __future__ import annotations

from typing import Any

import sympy
from sympy.printing.mathml import mathml

__all__ = ["latex_block", "mathml_block"]


def latex_block(expr: Any) -> str:
    """``$$ … $$`` display math for Markdown."""

    return f"$$ {sympy.latex(expr)} $$"


def mathml_block(expr: Any) -> str:
    """A ``<math display="block">`` element (presentation MathML) for HTML."""

    return f'<math display="block">{mathml(expr, printer="presentation")}</math>'
