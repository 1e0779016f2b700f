"""Reading one side of a claim written in LaTeX, as papers and tutorials write it.

SymPy's LaTeX parser (strict mode, on the ANTLR runtime) reads the arithmetic; this module
first rewrites what it cannot read into what it can, and builds the rest itself:

* ``\\begin{matrix|pmatrix|bmatrix}`` (also inside ``\\left( ... \\right)``) become SymPy
  matrices, cell by cell; a tuple ``(a, b, c)`` or ``(a, b, c)^T`` is a column vector.
* ``\\langle a, b \\rangle`` and ``<a, b>`` are the real inner product: ``Re(sum a_i conj(b_i))``,
  which is ``a^T b`` for real vectors and ``Re(a conj(b))`` for two complex numbers (the
  plane as C). ``\\odot`` / ``\\otimes`` between vectors multiply elementwise (a scalar
  operand scales); they bind looser than juxtaposition and tighter than ``+``.
* ``\\Re[...]``, ``Re[...]``, ``\\operatorname{Re}(...)`` (and Im) are real and imaginary parts;
  ``k^*``, ``(...)^*``, ``\\bar{k}``, ``\\overline{...}`` conjugates; ``^T``/``^\\top`` transposes,
  ``^H``/``^\\dagger`` conjugate-transposes; ``cos(x)``, ``sin(x)``, ``exp(x)`` need no backslash;
  Unicode (``θ``, ``·``, ``−``, ``⊙``, ``⟨⟩``, ``ᵀ``) reads as its command; ``\\mathbf{q}`` is ``q``;
  ``q^{(1)}`` is a symbol (a label, not a power); ``i`` is the imaginary unit and ``e`` Euler's
  number (``i`` in a subscript, or bound by a sum, is an index). Upright text: ``\\text{exp}``,
  ``\\mathrm{cos}``, ``\\operatorname{sin}`` are the functions, ``\\mathrm{i}`` the imaginary unit,
  ``\\mathrm{e}`` Euler's number, any other upright word one name (``d_{\\text{model}}`` is ``d_model``).
* Not read with certainty (a ``reading`` limit): prose in ``\\text{...}``, an upright word in front of a
  bracket or a matrix (``\\text{Rotated}[x_1; x_2]``), three glued letters (``pos``) or two before a
  subscript or a bracket (``PE_{...}``, ``PE(``): a name or a product. Where ``i`` is also an index
  (``Scope.index_i``) a bare ``i`` outside ``e^{...}``, and ``b^*`` for a name never conjugated otherwise
  (``Scope.star_names``), read two ways: a caller picks a reading or gets :class:`AmbiguousReading`.
* ``\\sum_j`` with no range written runs over ``first(j)..last(j)``, ``\\sum_j^{N}`` over ``first(j)..N``
  (:mod:`.open_sums`); ``\\det(M)`` of a square matrix is its determinant (:mod:`.determinants`); ``\\|q\\|_2`` is
  a name of its own, subscript kept.
* A name a document defined (:class:`~.scope.Scope`) stands for its definition: ``q``,
  ``\\theta_{i+1}`` (a pattern ``\\theta_i``), ``f_q(x_n, n)`` and ``\\text{rotate\\_half}(x)`` (functions).

What is not read is refused with its column, never guessed: an unknown command or
environment, ``\\cdots`` (terms the reader cannot see), an unknown function close to a known
one (``cosine(x)``: did you mean ``\\cos``?), shapes that do not fit. A trig function without
parentheses has two readings when the parser's and a human's differ -- ``\\cos m\\theta\\, q_1``
(the parser's ``cos(m θ q_1)``; a reader's ``cos(m θ) q_1``) or ``\\cos(m-n)\\theta``:
:func:`read_latex_side` gives either (``narrow=``), and a caller compares them.

Design constraints: every rewrite keeps the user's columns (:class:`.latex_text.Src`);
pieces (matrix cells, inner-product operands, ...) are read recursively and stand in the
parsed text as placeholder symbols, substituted while the expression is built -- in written
order, so products of matrices keep their order.
"""

from __future__ import annotations

import functools
import re
import warnings
from dataclasses import dataclass, field
from typing import Any

import sympy
from sympy import ImmutableMatrix, MatrixBase, Symbol

from ... import isolate
from ...errors import ClaimLimitError, ClaimParseError, UsageError
from .cases import CASES_OPEN, read_cases
from .commutators import commutators_written_out
from .complex_dots import DOT, DOT_CHOICES, dot_spans, stands_for_pair
from .complex_sums import unit_sum_columns, writes_complex_parts
from .components import components_as_labels
from .decorated_names import DECORATED_WORD, DECORATION_SUFFIX, decorated_as_names, decorated_as_words, spaced_labels
from .decorations import apply_aliases
from .derivatives import derivative_side, leibniz_at
from .determinants import DETERMINANT, determinants_read
from .diag_lists import DIAGONAL_CALLS, diagonal_call
from .expectation import expectation, random_names
from .general_matrices import BOLD_ZERO, DIMENSION, general_inner, written_value
from .index_arguments import index_argument_at
from .inner_fields import in_inner_field_mark, inner_field_at
from .label_powers import power_beside_labels
from .labelled_calls import labelled_call
from .latex_parser import parse_latex
from .latex_text import GREEK, WORDS_NAME, Src, closing, skip_group, split_top, top_level, words_name
from .latex_tree import (
    RAISED_CALL_LATEX,
    antlr_runtime_problem,
    block_share,
    build,
    collapse,
    elementwise,
    encode_tree,
    known_parse,
    remember_parse,
)
from .limits import check_matrix
from .maxima import extremum_list_at, maxima_read, read_maximum_at
from .number_lists import citations, drop_citations, unsure_list_at
from .open_sums import name_open_ranges, open_sum_ranges, upper_only_ranges
from .operator_subscripts import subscripted_operator
from .pair_families import pair_key, pair_member
from .primed_calls import PRIMED_CALL, primed_calls_read
from .radix_subscripts import RADIX_SUBSCRIPT, radix_subscript
from .scope import Definition, Scope, apply_domains, domain_key, domain_symbol
from .sympy_syntax import check_expression, inner_product, suggest_function
from .transposed_pairs import inner_product_names
from .trig_bounds import braced_atom_end, spaced_factor_problem, spacing_columns, without_row_spacing
from .upright_letters import (
    BLACKBOARD_LABEL,
    COLOUR,
    RAISED_UPRIGHT_LETTER,
    UPRIGHT_LETTER,
    blackboard_label,
    font_left_as_name,
    upright_letter,
)
from .written_norms import (
    EUCLIDEAN_NORM,
    NAMED_NORM,
    NORM_BAR,
    column_norm_squared,
    euclidean_norm_of,
    general_norm_squared,
    norm_pairs,
    norm_subscript,
    polar_modulus,
)

__all__ = [
    "PAIR_MARK",
    "AmbiguousReading",
    "I_CHOICES",
    "i_in_exponent_of_e",
    "KNOWN_COMMANDS",
    "NORM_CLOSE",
    "NORM_OPEN",
    "PLAIN_FUNCTIONS",
    "WORD_CHOICES",
    "calligraphic_as_names",
    "check_ellipsis",
    "comma_pattern_key",
    "conjugated_forms",
    "conjugated_names",
    "family_key",
    "normalize_latex",
    "reading_notes",
    "read_latex_side",
    "read_quiet",
    "star_only_names",
    "i_indexes_the_step",
    "subscripts_with_i",
    "trig_ambiguities",
    "upright_key",
]

_GREEK = GREEK
#: The commands a LaTeX claim may use; any other is refused with its column.
KNOWN_COMMANDS = frozenset(_GREEK) | frozenset(
    "sin cos tan csc sec cot sinh cosh tanh arcsin arccos arctan arccot arccsc arcsec arsinh arcosh artanh exp "
    "log ln lg sqrt frac dfrac tfrac binom dbinom tbinom sum prod int lim to infty cdot times div left right langle "
    "rangle lfloor rfloor lceil rceil quad qquad mathit mathrm operatorname text textrm mathsf bar overline top "
    "intercal Re Im thinspace medspace thickspace negthinspace negmedspace negthickspace le leq ge geq neq "
    "begin end odot otimes mathbf boldsymbol bm vec ast dagger displaystyle textstyle".split()
)
_MATRIX_ENVS = ("matrix", "pmatrix", "bmatrix", "Bmatrix")
#: Functions written without a backslash (``cos(x)``), read as their command.
PLAIN_FUNCTIONS = ("cos", "sin", "tan", "cot", "sec", "csc", "cosh", "sinh", "tanh", "exp", "log", "ln", "sqrt")
_EULER_NAME = "ZQEU"  # Euler's number: e^{...} and \\mathrm{e}; a lone e is a symbol
#: how a norm read as a name is spelled: ``‖D‖``
NORM_OPEN, NORM_CLOSE = "\u2016", "\u2016"
_PREFIX = "ZQPH"  # placeholder symbols: \mathit{ZQPHa}, \mathit{ZQPHb}, ...

_UNICODE = {
    "θ": r"\theta ", "φ": r"\phi ", "ϕ": r"\phi ", "ω": r"\omega ", "α": r"\alpha ", "β": r"\beta ", "π": r"\pi ",
    "Θ": r"\Theta ", "ψ": r"\psi ", "ϑ": r"\vartheta ", "·": r"\cdot ", "⋅": r"\cdot ", "×": r"\times ", "−": "-",
    "⊙": r"\odot ", "⊗": r"\otimes ", "⟨": r"\langle ", "⟩": r"\rangle ", "ᵀ": "^T", "†": r"^\dagger ",
    "∗": "*", "∑": r"\sum ",
}  # fmt: skip
_UNICODE_RE = re.compile("|".join(map(re.escape, _UNICODE)))
_ELLIPSIS = re.compile(
    r"\\cdot\s*\\cdot\s*\\cdot(?![A-Za-z])|\\(?:cdots|ldots|dots|vdots|ddots|dotsc|dotsb)(?![A-Za-z])|\.\.\.|…|⋯"
)
#: ``\mathbf{q}``, ``\vec{a}``, and with its subscript inside (``\vec{a_l}``, ``\mathbf{q_{m}}``): the name itself
_BOLD = re.compile(
    r"\\(?:mathbf|boldsymbol|bm|vec|overrightarrow)\s*\{\s*(\\?[A-Za-z]+(?:\s*_\s*(?:\{[^{}]*\}|[A-Za-z0-9]))?)\s*\}"
)
#: ``\vec z``, ``\mathbf q``, ``\bm\theta``: the one token after the command, unbraced (never ``vec`` times z)
_BOLD_BARE = re.compile(r"\\(?:mathbf|boldsymbol|bm|vec|overrightarrow)(?:\s+([A-Za-z])(?![A-Za-z])|\s*(\\[A-Za-z]+))")
#: ``\mathbf{a} \times \mathbf{b}``, ``\vec a \times (\vec b + \vec c)``: beside a vector written bold or with an
#: arrow, ``\times`` is the cross product (``a \times b = -b \times a``), never the product of two numbers: not read
_BOLD_OPERAND = r"\\(?:mathbf|boldsymbol|bm|vec|overrightarrow|pmb)(?![A-Za-z])"
_CROSS = re.compile(
    _BOLD_OPERAND + r"\s*(?:\{[^{}]*\}|[A-Za-z]|\\[A-Za-z]+)(?:\s*[_^]\s*(?:\{[^{}]*\}|\\?[A-Za-z0-9]+))*"
    r"\s*(?:\\right\s*)?[)\]]?\s*(?P<after>\\times)(?![A-Za-z])"
    r"|(?P<before>\\times)\s*(?:\\left\s*)?[(\[]?\s*" + _BOLD_OPERAND
)
#: a name read whole (a placeholder) with a star after it
_STARRED_PLACEHOLDER = re.compile(
    r"\\mathit\{(" + _PREFIX + r"[a-z]+)\}\s*\^\s*(?:\{\s*(?:\*|\\ast)\s*\}|\*|\\ast(?![A-Za-z]))"
)
#: the spelling of a decorated name read as one of its own (:mod:`.decorated_names`): ``xhat_{m}``, ``wstar``
_DECORATED_SYMBOL = re.compile(r"[A-Za-z]+" + DECORATION_SUFFIX + r"(?![A-Za-z])")
#: the backslash before such a name where a conjugate's form spells it as a command (``\\xhat``)
_DECORATED_COMMAND = re.compile(r"\\(?=[A-Za-z]+" + DECORATION_SUFFIX + r"(?![A-Za-z]))")
#: ``\ast``: raised, a conjugate (``k^\ast``); between factors (``f \ast g``) a convolution or a product, not read
_INFIX_AST = re.compile(r"\\ast(?![A-Za-z])")
#: ``\bar z``, ``\bar\theta``: the one token after the command, unbraced, is what it conjugates (never the name
#: ``bar`` times z, which SymPy's parser reads)
_BAR_BARE = re.compile(r"\\bar(?:\s+([A-Za-z0-9])(?![A-Za-z0-9])|\s*(\\[A-Za-z]+))")
#: a command's name just before a place (``\cdot`` before ``\mathbf{x}``)
_AFTER_COMMAND = re.compile(r"\\[A-Za-z]+$")
#: ``P_n\mathbf{t}``: after a one-character subscript or power, a bold name is a factor of its own (``P_n t``), never
#: glued into the script (``P_nt``, which a reader of names takes for the subscript ``nt``)
_AFTER_SCRIPT = re.compile(r"[_^]\s*[A-Za-z0-9]$")
#: ``\mathcal{R}``, ``\boldsymbol{\mathcal{R}}``: a calligraphic capital is a letter of its own, read as the
#: upright name ``calR`` (never as the plain R); ``\mathcal{O}`` (an order of growth) is no name and stays unread
_CALLIGRAPHIC = re.compile(r"(\\(?:mathbf|boldsymbol|bm)\s*\{\s*)?\\mathcal\s*\{\s*([A-NP-Z])\s*\}(?(1)\s*\})")
#: ``q^T @ k``: Python's matrix-product operator, as code-minded writers put it in a claim (read there only)
_MATMUL = re.compile(r"@")
# a row break \\ is consumed first: in \\W_q it is a break, then W_q, not a command \W
_COMMAND = re.compile(r"\\\\|\\([A-Za-z]+)")
_PLAIN_CALL = re.compile(r"(?<![\\A-Za-z{])([A-Za-z]{2,})(?=\s*(?:\^\s*(?:\{[^{}]*\}|\w)\s*)?(?:\(|\[|\\left))")
_PART_CALL = re.compile(
    r"(?:\\(?:operatorname|mathrm|text|textrm|mathit)\s*\{\s*(Re|Im)\s*\}|\\(Re|Im)(?![A-Za-z])|(?<![\\A-Za-z{])(Re|Im))"
    r"\s*(?=\\left|\(|\[)"
)
_TEXT_CALL = re.compile(
    r"\\(?:operatorname|mathrm|text|textrm|mathit)\s*\{(?!ZQPH)((?:[A-Za-z]|\\_|_)+|atan2)\}\s*(?=\\left|\()"
)
#: ``f_{\\{q,k\\}}``: one name for a family (f_q and f_k), read as one symbol or function
_SET_NAME = re.compile(r"(\\[A-Za-z]+|(?<![\\A-Za-z])[A-Za-z])\s*_\s*\{\s*\\\{([^{}]*?)\\\}\s*\}")
#: ``\\mathrm{Attention}``, ``\\operatorname{softmax}``: a word set upright is one name, not a product of letters
_UPRIGHT_NAME = re.compile(
    r"\\(?:operatorname|mathrm|text|textrm|mathit)\s*\{\s*(?!ZQ)([A-Za-z]{2,}(?:\\?_[A-Za-z]+)*)\s*\}"
)
#: ``d_{\\text{model}}``, ``L_\\text{train}``: a word set upright as a subscript; the name is ``d_model``
_SUBSCRIPT_WORD = re.compile(
    r"(\\[A-Za-z]+|(?<![\\A-Za-z])[A-Za-z])\s*_\s*(?:\{\s*\\(?:operatorname|mathrm|text|textrm|mathit)\s*\{\s*"
    r"(?!ZQ)([A-Za-z]{2,})\s*\}\s*\}|\\(?:operatorname|mathrm|text|textrm|mathit)\s*\{\s*(?!ZQ)([A-Za-z]{2,})\s*\})"
)
#: (an upright word first in the subscript, ``p_{\mathrm{wrap},i}``, is part of the name)
_COMMA_SUBSCRIPT = re.compile(
    r"(?:\\[A-Za-z]+|[A-Za-z])(?:\s*\^\s*(?:\{[^{}]*\}|[A-Za-z0-9]))?\s*_\s*\{(?:\\mathrm\{[A-Za-z]+\})?[^{}]*,[^{}]*\}"
)
#: ``p_{\text{wrap}, i}``: an upright word labelling a family over the index after the comma, one spelling of it
#: (``p_{\mathrm{wrap},i}``), read as ``\theta_{p,i}`` is: one name per index
_UPRIGHT_IN_COMMA_SUBSCRIPT = re.compile(
    r"(_\s*\{)\s*\\(?:text|textrm|mathrm|operatorname)\s*\{\s*([A-Za-z]+)\s*\}\s*,(?=[^{}]*\})"
)
_COMMA_SUBSCRIPT_LAST = re.compile(
    r"(?P<name>(?:\\[A-Za-z]+|[A-Za-z])\s*_\s*\{[^{}]*,[^{}]*\})\s*\^\s*(?P<sup>\{[A-Za-z0-9]+\}|[A-Za-z0-9])"
)
#: ``q^{(1)}``, ``W^{(1,2)}``: a name with a label above it (after a row break ``\\x^{(2)}``, the name is x)
#: (a decorated name read as one of its own, ``\\mathrm{Sigmadot}^{(l)}``, is labelled so too: see .decorated_names)
_LABEL = re.compile(
    r"((?:(?<!\\)\\[A-Za-z]+|(?<=\\\\)\\[A-Za-z]+|[A-Za-z]|" + DECORATED_WORD + r")"
    r"(?:_\{(?:[^{}]|\{[^{}]*\})*\}|_[A-Za-z0-9])?)\s*\^\s*"
    r"\{\s*\(\s*([A-Za-z0-9]+"
    r"(?:\s*,\s*[A-Za-z0-9]+)*)\s*\)\s*\}"
)


def family_key(base: str) -> str:
    """The key of a family of vectors written with a subscript and a label, ``v_{pos}^{(i)}`` (a pattern of
    :class:`~.scope.Scope` over both): its base and ``^{(*)}``, which no name as written spells."""
    return base.strip().lstrip("\\") + "^{(*)}"


#: ``~``, LaTeX's unbreakable space
_TIE = re.compile(r"(?<!\\)~")
#: a piece already read inside a name (``v_{\\mathit{ZQPHa}}^{(i)}``, glued letters in the subscript)
_PLACED = re.compile(r"\s*\\mathit\{(" + _PREFIX + r"[a-z]+)\}\s*")
_PART = re.compile(r"\\(?:operatorname|mathrm|text|textrm|mathit)\{(Re|Im)\}|\\(Re|Im)(?![A-Za-z])")
_TOP = re.compile(r"\^\s*(?:\{\s*(?:\\top|T|\\intercal|\\mathsf\{T\})\s*\}|\\top|\\intercal|T(?![A-Za-z]))")
_HERM = re.compile(r"\^\s*(?:\{\s*(?:\\dagger|H|\\mathsf\{H\})\s*\}|\\dagger|H(?![A-Za-z]))")
_STAR = re.compile(
    r"((?:\\[A-Za-z]+|[A-Za-z])(?:\s*_\{[^{}]*\}|\s*_[A-Za-z0-9])?)\s*\^\s*(?:\{\s*(?:\*|\\ast)\s*\}|\*|\\ast)"
)
_TRANSPOSE_AFTER = re.compile(r"\s*\^\s*(?:\{\s*(?:\\top|T|\\intercal)\s*\}|\\top|\\intercal|T(?![A-Za-z]))")
#: every spelling of a transpose, read as ``^{T}``
_TRANSPOSE_SPELLING = re.compile(
    r"\^\s*(?:\{\s*\\(?:mathsf|mathrm|mathit)\s*\{?\s*T\s*\}?\s*\}|\\(?:mathsf|mathrm)\s*\{\s*T\s*\}"
    r"|\{\s*\\(?:top|intercal)\s*\}|\\(?:top|intercal)(?![A-Za-z])"
    # x^TR: a superscript without braces is one letter, so this is x^T R (never a word TR)
    r"|T(?=[A-Za-z]))"
)
#: ``R^{T}_m``: a transpose set before the subscript, which TeX sets as ``R_m^{T}``: the transpose of R_m
_TRANSPOSE_BEFORE_SUBSCRIPT = re.compile(
    r"(?<![\\A-Za-z])(\\mathrm\{cal[A-Z]\}|[A-Za-z])\s*\^\s*(?:\{\s*T\s*\}|T(?![A-Za-z]))"
    r"\s*(_\s*(?:\{[^{}]*\}|[A-Za-z0-9]|\\[A-Za-z]+))"
)
#: ``x^{(1)}_m``: a bracketed label set before a one-letter subscript, which TeX sets as ``x_m^{(1)}``: that name
#: (a longer subscript, ``R^{(2)}_{\Theta,m}``, is left as written: the readers of raised families take it so)
_LABEL_BEFORE_SUBSCRIPT = re.compile(
    r"(?:(?<![\\A-Za-z])|(?<=_[A-Za-z]))(\\mathrm\{cal[A-Z]\}|[A-Za-z])\s*(\^\s*\{\s*\(\s*[A-Za-z0-9]+\s*\)\s*\})"
    r"\s*(_\s*(?:\{\s*[A-Za-z0-9]\s*\}|[A-Za-z0-9]))"
)
_PRIME = re.compile(r"(?<=[A-Za-z0-9})\]])\s*'")
_EULER = re.compile(
    r"\\(?:mathrm|text|textrm)\s*\{\s*e\s*\}|\\mathrm\s+e(?![A-Za-z])|(?<![\\A-Za-z0-9_^])e(?![A-Za-z])(?=\s*\^)"
)
#: ``\\text{exp}``, ``\\mathrm{cos}``, ``\\operatorname{sin}``: the function set upright, read as its command
#: ``re^{i\\theta}``, ``qke^{i x}``: one or two letters glued to an ``e`` that is raised, Euler's number after a
#: modulus or coefficient (polar form), as this literature writes it; a longer word keeps its ``e``
_EULER_GLUED = re.compile(r"(?<![\\A-Za-z0-9_^])([A-Za-z]{1,2})e(?=\s*\^)")
#: ``q_me^{i x}``: a raised ``e`` glued after a one-letter subscript: ``q_m e^{i x}``, as the page shows it (a
#: subscript without braces takes one letter), its ``e`` Euler's number as any raised ``e`` is
_EULER_AFTER_SCRIPT = re.compile(r"(?<=(?<!\\)_[A-Za-z])e(?=\s*\^)")
_UPRIGHT_FUNCTION = re.compile(
    r"\\(?:text|textrm|mathrm|operatorname)\s*\{\s*(sinh|cosh|tanh|sin|cos|tan|cot|sec|csc|exp|log|ln)\s*\}"
)
#: ``\\text{i}``, ``\\mathrm{i}``: the imaginary unit set upright (never an index)
_UPRIGHT_I = re.compile(r"\\(?:text|textrm|mathrm)\s*\{\s*i\s*\}")
_UNIT_NAME = "ZQIU"  # the imaginary unit, certainly (upright, or in an exponent of e)
#: ``\\text{...}`` holding words and spaces: prose, not math
#: (the space inside the braces: in ``\\mathrm{Lprime} }\\theta}`` the name is closed before it, one name)
_PROSE = re.compile(r"\\(?:text|textrm|mathrm)\s*\{([^{}]*[^{}\s]\s+\S[^{}]*)\}")
#: ``x^\\prime``, ``x^{\\prime}``: the same as ``x'``
_PRIME_COMMAND = re.compile(r"\^\s*(?:\{\s*\\prime\s*\}|\\prime(?![A-Za-z]))")
#: ``q_{[2i:2i+1]}``: a slice of a vector's entries, as a subscript
_SLICE = re.compile(r"(\\?[A-Za-z]+)(\s*\^\s*(?:\*|\{\s*\*\s*\}))?\s*_\s*\{\s*\[([^\[\]{}:]+):([^\[\]{}:]+)\]\s*\}")
#: the mark of a pair of entries read as one complex number: ``q_{[2i:2i+1]}`` is the entry i of ``q⟦⟧``
PAIR_MARK = "⟦⟧"
#: ``b^{\\prime \\frac{2d}{D}}``: the primes that open a superscript mark the name, the rest is its power
#: (``b'^{2d/D}``, as LaTeX sets it)
_PRIMED_POWER = re.compile(r"\^\s*\{((?:\s*\\prime(?![A-Za-z]))+)\s*(?=[^\s}])")
#: ``\\sum\\limits_{j}``: where the limits are typeset, nothing more
_LIMITS = re.compile(r"\\(?:no)?limits(?![A-Za-z])")
#: ``30^\\circ``, ``30°``: a number of degrees, read as that many times pi/180 (only after a number)
_DEGREES = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s*(?:\^\s*(?:\{\s*\\circ\s*\}|\\circ(?![A-Za-z]))|°)")
_DIFFERENTIAL = re.compile(r"(?<![\\A-Za-z0-9_^])d(?=\s*\\?[A-Za-z])")
_UPRIGHT_D = re.compile(r"\\mathrm\s*\{\s*d\s*\}")
_GLUED = re.compile(r"(?<![\\A-Za-z])[A-Za-z]*(?:sin|cos|tan|cot|sec|csc|exp|log)[A-Za-z]*")
#: Four letters or more glued together: a word (``Attention``, ``score``) or a product of as many symbols.
_WORD = re.compile(r"(?<![\\A-Za-z])[A-Za-z]{4,}")
#: Three letters glued together (``pos``, ``dim``), or two followed by a subscript or a bracket (``PE_{...}``,
#: ``PE(``): a name or a product, as likely one as the other. Two letters alone (``mn``, ``qk``) are a product.
_SHORT_WORD = re.compile(r"(?<![\\A-Za-z])(?:[A-Za-z]{3}(?![A-Za-z])|[A-Za-z]{2}(?=\s*[_(]))")
#: an unbraced script's one letter with letters after it (``W_qx_m``: W_q then x_m, as TeX sets it): no glued word
_SCRIPT_LETTER_BEFORE_LETTERS = re.compile(r"(?<=[_^])(\s*)[A-Za-z](?=[A-Za-z])")
_COMMAND_ARGUMENT = re.compile(r"\\(?:mathit|mathrm|mathsf|text|textrm|operatorname|begin|end)\s*\{[^{}]*\}")
_STAR_AFTER = re.compile(r"\s*\^\s*(?:\{\s*(?:\*|\\ast)\s*\}|\*|\\ast)")
_TRIG = re.compile(r"\\(sin|cos|tan|cot|sec|csc|sinh|cosh|tanh)(?![A-Za-z])")
#: a bracket right after a trig argument written without parentheses (``\sin \omega(p+k)``)
_BRACKET_AFTER = re.compile(r"\s*(?:\\left\s*)?\(")
_POWER = re.compile(r"\s*\^\s*(?:\{[^{}]*\}|[A-Za-z0-9])")
_SCRIPT = re.compile(r"\s*[_^]\s*(?:\{[^{}]*\}|\\[A-Za-z]+|[A-Za-z0-9])")
#: a letter's only script a negative power, ``b^{-2i/d}``: a frequency written as a power of the base, part of
#: the angle (``\cos m b^{-2i/d}`` is cos(m b^{-2i/d})), not a component like ``q_1``
_NEGATIVE_POWER = re.compile(r"\s*\^\s*\{\s*-[^{}]*\}")
_ATOM = re.compile(
    r"\s*(?:(?P<num>\d+(?:\.\d+)?)|(?P<greek>\\(?:" + "|".join(_GREEK) + r")(?![A-Za-z]))|(?P<letter>[A-Za-z]))"
)
_AFTER_OPERATOR = re.compile(r"(?:[-+*/^_{(\[,&]|\\cdot|\\times|\\odot|\\otimes)\s*$")
_OPERAND_BEFORE = re.compile(
    r"(?:^|(?<![_^])\d|[=+\-(\[{,&)\]]|\\cdot|\\times|\\odot|\\otimes|\\left\(|\\left\["
    r"|\\mathit\{" + _PREFIX + r"[a-z]+\})\s*$"
)


_UPRIGHT_THEN_SUBSCRIPT = re.compile(
    r"\\(?:operatorname|mathrm|text|textrm)\s*\{\s*(?!ZQ)([A-Za-z]{2,}(?:\\_[A-Za-z]{2,})*)\s*\}\s*_\s*(?=\{|[A-Za-z0-9])"
)
_UPRIGHT_WRAP = re.compile(r"\\(?:operatorname|mathrm|text|textrm)\s*\{\s*([A-Za-z]+)\s*\}")


_UPRIGHT_COMMAND = r"\\(?:mathrm|text|textrm|operatorname)"
_UPRIGHT_BASE = re.compile(_UPRIGHT_COMMAND + r"\s*\{\s*([A-Za-z]+)\s*\}")


def upright_key(base: str) -> str:
    """The one key of an upright base however it is written: ``\\text{PE}``, ``\\mathrm {PE}`` -> ``\\mathrm{PE}``."""
    m = _UPRIGHT_BASE.fullmatch(base.strip())
    return "\\mathrm{" + m.group(1) + "}" if m else base


def _subscript(src: Src, m: re.Match[str]) -> tuple[int, Src]:
    """Where the subscript ``m`` opens ends, and its text: a ``{...}`` group (``m`` ends at its brace), or the one
    token ``m`` captured as group 1."""
    if m.group(1) is None:
        end = skip_group(src.text, m.end() - 1)
        return end, src.slice(m.end(), end - 1)
    return m.end(), src.slice(m.start(1), m.end())


def _upright_word(key: str) -> str | None:
    m = _UPRIGHT_BASE.fullmatch(key)
    return m.group(1) if m else None


def _upright_subscripted(src: Src, symbol: Any) -> Src:
    """``\\mathrm{PE}_{(pos,2i)}``: an upright word with a subscript is one name, its subscript as written."""
    pos = 0
    while True:
        m = _UPRIGHT_THEN_SUBSCRIPT.search(src.text, pos)
        if not m:
            return src
        if src.text[m.end()] == "{":
            end = skip_group(src.text, m.end())
            if end < 0:  # pragma: no cover - brackets were checked
                return src
            sub = src.text[m.end() + 1 : end - 1]
        else:
            end, sub = m.end() + 1, src.text[m.end()]
        sub = re.sub(r"\s+", "", _UPRIGHT_WRAP.sub(lambda w: w.group(1), sub))
        # \\text{KV Cache}_{\\text{MHA}}, its words joined (KV\\_Cache): one name too, KV_Cache_{MHA}
        name = m.group(1).replace("\\_", "_")
        src = src.splice(m.start(), end, symbol(f"{name}_{{{sub}}}"))
        pos = m.start() + 1


class AmbiguousReading(ClaimLimitError):
    """Notation with two readings and no reading chosen (:class:`~.scope.Scope`): ``field`` is the Scope
    field that picks one, ``choices`` its values, ``described`` each reading in words."""

    def __init__(self, message: str, field: str, choices: dict[str, str], position: int | None = None) -> None:
        super().__init__(message, "reading", position)
        self.field, self.choices = field, choices


def _names(n: int) -> str:
    """0 -> 'a', 25 -> 'z', 26 -> 'ba', ... (placeholder suffixes: letters only, as the parser reads names)."""
    out = ""
    while True:
        out = chr(ord("a") + n % 26) + out
        n //= 26
        if n == 0:
            return out


# --------------------------------------------------------------------------- checks and rewrites of the whole side


def _calligraphic_name(m: re.Match[str]) -> str:
    return r"\mathrm{cal" + m.group(2) + "}"


def calligraphic_as_names(text: str) -> str:
    """The text with each calligraphic capital (``\\boldsymbol{\\mathcal{R}}``) as the name the reader takes for it
    (its bold dropped: the name is a vector or matrix where it is written transposed or multiplies one).

    Example:
        >>> calligraphic_as_names(r"\\boldsymbol{\\mathcal{R}}_m^{\\top} q")
        '\\\\mathrm{calR}_m^{\\\\top} q'
    """
    return _CALLIGRAPHIC.sub(_calligraphic_name, text)


#: ``\\lt``, ``\\gt``: MathJax's spellings of < and > (HTML-safe), read as the signs
_LESS_GREATER = re.compile(r"\\([lg])t(?![A-Za-z])")
#: spacing: ``\\displaystyle``, ``\\,``, ``\\ `` -- also after a row break (``\\\\\\ b``: a row break, then a space)
_SPACING = re.compile(r"(?<!\\)((?:\\\\)*)(?:\\(?:displaystyle|textstyle)(?![A-Za-z])|\\[,;:! ])")


#: ``\big(``, ``\Bigl[``, ``\bigg\{``: a size for the delimiter after it, which is all that is read (as
#: ``\left`` is; ``\big.`` is no delimiter); never the name ``big`` times a bracket. ``\bigm|``, a relation's
#: bar, is not read
_SIZED_DELIMITER = re.compile(
    r"\\(?:big|Big|bigg|Bigg)[lr]?\s*(?:\.|(?=[()\[\]|/]|\\[{}|]|\\(?:[lr]angle|langle|rangle|[lr]vert|[lr]Vert|[lr]floor"
    r"|[lr]ceil)(?![A-Za-z])))"
)


def _square_block(value: Any) -> bool:
    """Whether ``value`` is a matrix that is no row and no column (its ``\\otimes`` is Kronecker's)."""
    return isinstance(value, MatrixBase) and value.rows > 1 and value.cols > 1


def _check_products(src: Src) -> None:
    """Products written with a sign that reads two ways are refused before the bold is dropped: ``\\ast`` between
    factors (a convolution?) and ``\\times`` beside a vector written bold or with an arrow (the cross product)."""
    text = src.text.replace("×", r"\times ").replace("∗", r"\ast ")
    shift = len(src.text) - len(text)  # a sign written × or ∗ lengthens the text: the column is then the side's
    for star in _INFIX_AST.finditer(text):
        if not re.search(r"\^\s*\{?\s*$", text[: star.start()]):
            at = star.start() if not shift else 0
            raise src.error(r"\ast between factors (a convolution, or a product?) is not read", at)
    if cross := _CROSS.search(text):
        at = (cross.start("after") if cross.group("after") else cross.start("before")) if not shift else 0
        raise src.error(r"\times beside a vector written bold or with an arrow is the cross product, not read", at)


def _apart(text: str, at: int) -> bool:
    """Whether a bold name at ``at`` needs a space before it: after a command or a one-character script."""
    return bool(_AFTER_COMMAND.search(text, 0, at) or _AFTER_SCRIPT.search(text, 0, at))


@functools.lru_cache(maxsize=4096)  # a pure function of the text and its columns, read again by every step
def _normalize(src: Src) -> Src:
    src = without_row_spacing(src.sub(_UNICODE_RE, lambda m: _UNICODE[m.group(0)]))
    src = src.sub(COLOUR, lambda m: " ")
    src = src.sub(BLACKBOARD_LABEL, blackboard_label)
    src = src.sub(RADIX_SUBSCRIPT, radix_subscript)  # p_{(011)_2}: p_{3}
    src = src.sub(re.compile(r"\\([lr])brace(?![A-Za-z])"), lambda m: "\\{" if m.group(1) == "l" else "\\}")
    src = src.sub(_LESS_GREATER, lambda m: " < " if m.group(1) == "l" else " > ")  # MathJax's \lt, \gt
    src = src.sub(_CALLIGRAPHIC, _calligraphic_name)
    src = src.sub(_UPRIGHT_IN_COMMA_SUBSCRIPT, lambda m: m.group(1) + r"\mathrm{" + m.group(2) + "},")
    # after a command (``\\cdot\\mathbf{x}``) the name stays apart from it: ``\\cdot x``, never ``\\cdotx``; after
    # a one-character script too (``P_n\\mathbf{t}``: ``P_n t``, never ``P_nt``)
    src = src.sub(_BOLD, lambda m: (" " if _apart(m.string, m.start()) else "") + m.group(1) + " ")
    src = src.sub(_BOLD_BARE, lambda m: " " + (m.group(1) or m.group(2)) + " ")
    src = src.sub(_SPACING, lambda m: m.group(1) + " ")
    src = drop_citations(src)  # [4] closing a side; [0, 1, 1] where an operand stands is a column
    src = src.sub(_TRANSPOSE_SPELLING, lambda m: "^{T}")
    src = src.sub(_TRANSPOSE_BEFORE_SUBSCRIPT, lambda m: m.group(1) + m.group(2) + "^{T}")
    src = src.sub(_LABEL_BEFORE_SUBSCRIPT, lambda m: m.group(1) + m.group(3) + m.group(2))
    src = src.sub(_EULER, lambda m: r" \mathit{" + _EULER_NAME + "} ")
    src = src.sub(_EULER_GLUED, lambda m: m.group(1) + r" \mathit{" + _EULER_NAME + "} ")
    src = src.sub(_EULER_AFTER_SCRIPT, lambda m: r" \mathit{" + _EULER_NAME + "} ")
    src = src.sub(_UPRIGHT_FUNCTION, lambda m: "\\" + m.group(1) + " ")
    src = src.sub(_UPRIGHT_I, lambda m: r" \mathit{" + _UNIT_NAME + "} ")
    src = src.sub(_PRIMED_POWER, lambda m: "'" * m.group(1).count("prime") + "^{")
    src = src.sub(_PRIME_COMMAND, lambda m: "'")
    src = src.sub(_LIMITS, lambda m: " ")
    src = src.sub(WORDS_NAME, lambda m: m.group(0) if words_name(m) is None else f"\\text{{{words_name(m)}}}")
    src = src.sub(NORM_BAR, lambda m: "\\|")
    src = src.sub(_TIE, lambda m: " ")
    src = src.sub(_SIZED_DELIMITER, lambda m: " ")
    src = src.sub(_DEGREES, lambda m: "(" + m.group(1) + r" \cdot \frac{\pi}{180})")
    src = src.sub(UPRIGHT_LETTER, upright_letter)
    return _drop_braces(src)


_BRACE = re.compile(r"\\(?:underbrace|overbrace)\s*(?=\{)")


def _drop_braces(src: Src) -> Src:
    """``\\underbrace{X}_{\\text{label}}`` (and ``\\overbrace{X}^{...}``) is X: the label annotates, it is not math."""
    while True:
        m = _BRACE.search(src.text)
        if not m:
            return src
        end = skip_group(src.text, m.end())
        if end < 0:
            return src  # unbalanced: the bracket check says where
        label = re.match(r"\s*[_^]\s*", src.text[end:])
        stop = end
        if label:
            at = end + label.end()
            stop = skip_group(src.text, at) if src.text[at : at + 1] == "{" else at + 1
            if stop < 0:
                return src
        src = src.splice(end, stop, " ").splice(m.start(), m.end(), " ")  # the group stays a group


def _check_upright(src: Src, scope: Scope) -> None:
    """Upright text that is not one name: prose (``\\text{turning by }``), or a word set as a label in
    front of a bracket or a matrix (``\\text{Rotated}[x_1; x_2]``): what it says of the formula is not read."""
    m = _PROSE.search(src.text)
    if m:
        raise ClaimLimitError(
            f"{m.group(0)!r} is prose inside the formula: what it says is not read", "reading", src.col(m.start())
        )
    raised = RAISED_UPRIGHT_LETTER.search(src.text)
    if raised is not None:
        raise ClaimLimitError(
            f"an upright letter raised (x^{{\\mathrm{{{raised.group('letter')}}}}}): a label or a power? "
            "not read with certainty",
            "reading",
            src.col(raised.start()),
        )
    m = subscripted_operator(src.text)
    if m:  # \operatorname{argmax}_j s_j: an operator applied, never a name times s_j
        raise ClaimLimitError(
            f"{m.group(0)!r} is an operator applied over its subscript: not read", "reading", src.col(m.start())
        )
    for m in _UPRIGHT_NAME.finditer(src.text):
        name = m.group(1).replace("\\_", "_")
        if name in ("Re", "Im") or name in scope.functions:
            continue
        if re.match(r"\s*(?:\\left\s*\[|\[|\\begin\s*\{|\\\{|\\[lL]angle(?![A-Za-z]))", src.text[m.end() :]):
            raise ClaimLimitError(
                f"{m.group(0)!r} stands in front of a bracket or a matrix as a label or an operator: "
                "not read with certainty",
                "reading",
                src.col(m.start()),
            )


#: ``4/d \\ln c``, ``x/2y``: a slash whose divisor a factor follows -- (4/d) ln c, or 4/(d ln c)?
_SLASH_THEN_FACTOR = re.compile(
    r"/\s*(?:\d+(?:\.\d+)?|[A-Za-z]|\\[A-Za-z]+(?![A-Za-z])(?:\s*\{(?:[^{}]|\{[^{}]*\})*\})?|\{(?:[^{}]|\{[^{}]*\})*\}"
    r"|\((?:[^()]|\([^()]*\))*\))"
    r"(?:\s*[_^]\s*(?:\{(?:[^{}]|\{[^{}]*\})*\}|\\[A-Za-z]+|[A-Za-z0-9]))*"
    r"\s*(?=[A-Za-z(]|\\(?!(?:cdot|times|div|right|big|Big|bigg|Bigg|end|quad|qquad|le|ge|leq|geq|neq|lt|gt|approx|simeq"
    r"|tag|text|mid)(?![A-Za-z]))[A-Za-z])"
)


def _check_slash(src: Src) -> None:
    """A slash whose divisor a factor follows (``4/d \\ln c``) reads as the quotient times the factor or as a
    quotient by the product; people write both, so the side is not read with certainty."""
    m = _SLASH_THEN_FACTOR.search(src.text)
    if m:
        raise ClaimLimitError(
            f"{src.text[m.start() : m.end()].strip()!r} followed by a factor: a quotient times the factor, or a "
            "quotient by the product? not read with certainty; write \\frac or parentheses",
            "reading",
            src.col(m.start()),
        )


def _differentials(src: Src) -> Src:
    """A ``d`` is a differential only as ``\\mathrm{d}`` in an integral; elsewhere ``d x`` is d times x.

    ``\\mathrm{d}`` outside an integral (a derivative ``\\frac{\\mathrm{d}}{\\mathrm{d}x}``) is not read.
    """
    if re.search(r"\\int(?![A-Za-z])", src.text):
        return src.sub(_UPRIGHT_D, lambda m: "d")
    m = _UPRIGHT_D.search(src.text)
    if m:
        raise ClaimLimitError(
            r"\mathrm{d} outside an integral (a derivative) is not read", "reading", src.col(m.start())
        )
    masked = [(m.start(), m.end()) for m in _COMMAND_ARGUMENT.finditer(src.text)]
    return src.sub(
        _DIFFERENTIAL,
        lambda m: m.group(0) if any(a <= m.start() < b for a, b in masked) else r"\mathit{d}",
    )


#: the readings of glued letters (``Scope.word_reading``), each in words
WORD_CHOICES = {"name": "glued letters as one name (pos)", "product": "glued letters as a product (p·o·s)"}


#: ``cosm\\theta_1``: a cosine or a sine glued to one letter, then a Greek letter (the angle's other factor)
_GLUED_TURN = re.compile(r"(?<![\\A-Za-z])(cos|sin)([A-Za-z])(?=\s*\\(?:" + "|".join(GREEK) + r")(?![A-Za-z]))")


def _drawn_turns(src: Src) -> Src:
    """``cosm\\theta_1 & -sinm\\theta_1 \\\\ sinm\\theta_1 & cosm\\theta_1`` in a matrix: the cosine and the sine
    of one angle, glued to the same one letter, as the 2x2 blocks of a rotation are drawn (``\\cos m\\theta_1``).

    Only where the text draws a matrix, every run that spells a function name without its backslash is such a
    cosine or sine, all glued to one letter, and each angle written with a cosine is written with a sine too
    (and the other way round): a product of the letters c, o, s and i, n would not pair so. Anything else is
    left to :func:`_glued`, which does not read it.
    """
    if not re.search(r"\\begin\s*\{[pbBvV]?matrix\}", src.text):
        return src
    text = _COMMAND_ARGUMENT.sub(lambda m: " " * len(m.group(0)), src.text)
    runs = list(_GLUED.finditer(text))
    turns = [_GLUED_TURN.match(text, m.start()) for m in runs]
    if not runs or any(t is None or t.end(2) != m.end() for t, m in zip(turns, runs)):
        return src
    found = [t for t in turns if t is not None]
    if len({t.group(2) for t in found}) != 1:
        return src
    angles: dict[str, set[str]] = {"cos": set(), "sin": set()}
    for t in found:  # the angle: the letter and the Greek letter with its subscript, as written
        angle = re.match(r"\s*\\[A-Za-z]+(?:\s*_\s*(?:\{[^{}]*\}|[A-Za-z0-9]))?", src.text[t.end() :])
        angles[t.group(1)].add(re.sub(r"\s+", "", angle.group(0)) if angle else "")
    if angles["cos"] != angles["sin"]:
        return src
    for t in reversed(found):
        src = src.splice(t.start(), t.end(), "\\" + t.group(1) + " " + t.group(2))
    return src


def _glued(src: Src, scope: Scope) -> Src:
    """Glued letters, read as the scope's ``word_reading`` picks.

    A run that spells a function name without its backslash (``sinacosb``, ``isin``) is not read
    with certainty (:class:`ClaimLimitError`). A word (``pos``, ``Attention``, ``PE_{...}``) is one
    name or a product of as many letters: :class:`AmbiguousReading` until ``word_reading`` picks
    ``"name"`` (the word as if written ``\\mathrm{pos}``) or ``"product"`` (``p o s``). Only where
    the two readings bound every other one: the product of the letters is a real number (no ``i``
    among them, no letter or word the document defines, none declared complex), so a step proved
    with the word a free name holds for any value of it, and a counterexample to the product is
    one to every reading. Otherwise the word is not read with certainty.
    """
    src = _drawn_turns(src)
    text = _COMMAND_ARGUMENT.sub(lambda m: " " * len(m.group(0)), src.text)
    text = _SCRIPT_LETTER_BEFORE_LETTERS.sub(lambda m: m.group(1) + " ", text)  # `_qx`: the script is q alone
    for m in _GLUED.finditer(text):
        if m.group(0) in scope.functions:
            continue
        raise ClaimLimitError(
            f"{m.group(0)!r} spells a function name without a backslash: a product of letters or a function? "
            "write \\sin, \\cos, ... with the argument in parentheses",
            "reading",
            src.col(m.start()),
        )
    labels = _subscript_labels(src.text, scope)
    words = [m for rx in (_WORD, _SHORT_WORD) for m in rx.finditer(text)]
    words = sorted((m for m in words if m.group(0) not in scope.functions and m.group(0) not in ("Re", "Im")),
                   key=lambda m: m.start())  # fmt: skip
    for m in reversed([m for m in words if m.span() in labels]):
        src = src.splice(m.start(), m.end(), r"\mathrm{" + m.group(0) + "}")
    words = [m for m in words if m.span() not in labels]
    if not words:
        return src
    unbounded = [m for m in words if not _bounded_word(m.group(0), scope)]
    if unbounded or scope.word_reading not in WORD_CHOICES:
        first = (unbounded or words)[0]
        word = first.group(0)
        message = (
            f"{word!r} reads as a {'word' if len(word) > 3 else 'name'} or as a product of {len(word)} symbols: "
            f"not read with certainty; write \\mathrm{{{word}}} for a name, or separate the factors"
            + (f" ({' '.join(word)})" if len(word) <= 3 else "")
        )
        if unbounded:
            raise ClaimLimitError(message, "reading", src.col(first.start()))
        raise AmbiguousReading(message, "word_reading", WORD_CHOICES, src.col(first.start()))
    for m in reversed(words):
        word = m.group(0)
        written = r"\mathrm{" + word + "}" if scope.word_reading == "name" else " " + " ".join(word) + " "
        src = src.splice(m.start(), m.end(), written)
    return src


#: a word of four letters or more that is all of a braced subscript (``L_{train}``, ``d_{model}``), and its base
_LABEL_WORD = re.compile(r"_\s*\{\s*([A-Za-z]{4,})\s*\}")
_LABEL_BASE = re.compile(r"(\\(?:text|textrm|mathrm|operatorname)\s*\{[^{}]*\}|\\?[A-Za-z]+)\s*$")


def _subscript_labels(text: str, scope: Scope) -> set[tuple[int, int]]:
    """Where a word fills a braced subscript as a label: one name in every reading (see :func:`_glued`).

    Under a base that is no family or function of the document the subscript is part of the name, never
    evaluated, so the word and the product of its letters name one symbol, spelled two ways (``L_{train}``,
    ``L_{a*i*n*r*t}``), and ``i`` among them is no unit. A word the document defines is not a label.
    """
    out = set()
    for m in _LABEL_WORD.finditer(text):
        base = _LABEL_BASE.search(text, 0, m.start())
        if base is None or scope.defines(m.group(1)):
            continue
        b = base.group(1)
        keys = {b, b.lstrip("\\"), upright_key(b), family_key(b)}
        if not any(k in scope.patterns or k in scope.functions for k in keys):
            out.add(m.span(1))
    return out


def _bounded_word(word: str, scope: Scope) -> bool:
    """Whether the name and product readings of ``word`` bound every reading of it (see :func:`_glued`)."""
    if "i" in word or scope.defines(word):
        return False
    return all(not scope.defines(ch) and scope.domains.get(ch, "real") != "complex" for ch in word)


#: the readings of a bare ``i`` where the document also indexes with i (``Scope.i_reading``), in words
I_CHOICES = {"unit": "i the imaginary unit", "index": "i a real index"}
#: ``v^{(i)}``: a label (see ``_LABEL``), whose ``i`` names an entry, never the imaginary unit
_LABEL_SPAN = re.compile(r"\^\s*\{\s*\(\s*[A-Za-z0-9]+(?:\s*,\s*[A-Za-z0-9]+)*\s*\)\s*\}")
_SUBSCRIPT_SPAN = re.compile(r"_\s*(?:\{|\\[A-Za-z]+|[A-Za-z0-9])")
_EXPONENT_OF_E = re.compile(r"\\mathit\{" + _EULER_NAME + r"\}\s*\^\s*(?:\{|[A-Za-z0-9])|\\exp\s*(?:\\left\s*)?[({]")


def _spans(text: str, rx: re.Pattern[str]) -> list[tuple[int, int]]:
    """Where each match of ``rx`` reaches, its bracket group included (a subscript, an exponent)."""
    out = []
    for m in rx.finditer(text):
        if text[m.end() - 1] in "({":
            end = skip_group(text, m.end() - 1)
            out.append((m.start(), end if end > 0 else len(text)))
        else:
            out.append((m.start(), m.end()))
    return out


def _imaginary(src: Src, scope: Scope, bound: frozenset[str]) -> tuple[Src, frozenset[str]]:
    """Where the document also uses ``i`` as an index (``scope.index_i``), a bare ``i`` outside an exponent
    of e reads two ways: the imaginary unit, or that index. ``scope.i_reading`` picks one; without it the
    side is not read (:class:`AmbiguousReading`). An ``i`` in ``e^{...}`` or ``\\exp(...)`` is the unit."""
    text = src.text
    if not scope.index_i or "i" in bound or re.search(r"\\(?:sum|prod)\s*_\s*\{?\s*i(?![A-Za-z])", text):
        return src, bound
    masked = _spans(text, _COMMAND_ARGUMENT) + _spans(text, _SUBSCRIPT_SPAN) + _spans(text, _LABEL_SPAN)
    exponents = _spans(text, _EXPONENT_OF_E)
    unit: list[int] = []
    bare: list[int] = []
    for run in re.finditer(r"(?<![\\A-Za-z])[A-Za-z]+", text):
        for k, ch in enumerate(run.group(0)):
            at = run.start() + k
            if ch != "i" or any(a <= at < b for a, b in masked):
                continue
            (unit if any(a <= at < b for a, b in exponents) else bare).append(at)
    if bare and scope.i_reading not in I_CHOICES:
        raise AmbiguousReading(
            "a bare `i` reads as the imaginary unit or as the index i this text also uses (θ_i, x_{2i}): "
            "not read with certainty; write \\mathrm{i} for the unit",
            "i_reading",
            I_CHOICES,
            src.col(bare[0]),
        )
    if scope.i_reading == "unit":
        unit += bare
    elif bare:
        bound = bound | {"i"}
    for at in sorted(unit, reverse=True):
        src = src.splice(at, at + 1, r" \mathit{" + _UNIT_NAME + "} ")
    return src, bound


def _complex_sums(src: Src, scope: Scope, bound: frozenset[str]) -> Src:
    """``q_0 + iq_1``: the ``i`` of a complex number written from its parts is the unit, where the formula or the
    document writes i as the unit and nothing indexes with it (see :mod:`.complex_sums`)."""
    if scope.complex_sums == "off" or "i" in bound or scope.defines("i") or "i" in scope.domains:
        return src
    said = scope.complex_sums == "document" or writes_complex_parts(src.text) or i_in_exponent_of_e(src.text)
    for at in reversed(unit_sum_columns(src.text) if said else []):
        src = src.splice(at, at + 1, r" \mathit{" + _UNIT_NAME + "} ")
    return src


#: an exponent, its base kept apart from e by :data:`_EXPONENT_OF_E` (``b^{2i/d}``, ``10000^{-2i/d}``)
_EXPONENT = re.compile(r"\^\s*(?:\{|[A-Za-z0-9])")


def i_indexes_the_step(text: str) -> bool:
    r"""Whether every bare ``i`` of a step (both sides, ``text``) is the index this step writes in a subscript.

    So read when the step indexes with i (``\lambda_i``), writes no i that is certainly the unit (upright, or in
    an exponent of e), and each bare i is a letter alone in an exponent of another base (``b^{2i/d}``) or a later
    argument of a call (``f_t(x_i, i)``, :mod:`.index_arguments`): there this literature writes a frequency's
    index or a position, and the unit only as ``e^{i x}``. ``x_i + i y_i`` keeps both readings.

    Example:
        >>> i_indexes_the_step(r"\frac{c}{\lambda_i} = c\, b^{2i/d}"), i_indexes_the_step(r"z_i = x_i + i y_i")
        (True, False)
        >>> i_indexes_the_step(r"\lambda_i e^{i t} = b^{2i/d} e^{i t}")
        False
        >>> i_indexes_the_step(r"f_t(x_i, i) = W_t (x_i + p_i)"), i_indexes_the_step(r"v_i = (1, i)")
        (True, False)
    """
    t = _normalize(Src.of(text)).text
    if _UNIT_NAME in t or not subscripts_with_i(t):
        return False
    masked = _spans(t, _COMMAND_ARGUMENT) + _spans(t, _SUBSCRIPT_SPAN) + _spans(t, _LABEL_SPAN)
    of_e = _spans(t, _EXPONENT_OF_E)
    exponents = [(a, b) for a, b in _spans(t, _EXPONENT) if not any(c <= a < d for c, d in of_e)]
    bare = 0
    for run in re.finditer(r"(?<![\\A-Za-z])[A-Za-z]+", t):
        for k, ch in enumerate(run.group(0)):
            at = run.start() + k
            if ch != "i" or any(a <= at < b for a, b in masked):
                continue
            if run.group(0) != "i" or any(a <= at < b for a, b in of_e):
                return False
            if not any(a <= at < b for a, b in exponents) and not index_argument_at(t, at):
                return False
            bare += 1
    return bare > 0


def i_in_exponent_of_e(tex: str) -> bool:
    r"""Whether ``tex`` writes ``i`` in an exponent of e (``e^{i\theta}``, ``\exp(i x)``), where it is the unit.

    Example:
        >>> i_in_exponent_of_e(r"e^{i\theta} = \cos\theta + i\sin\theta"), i_in_exponent_of_e(r"x_i + i y")
        (True, False)
    """
    text = _plain_functions(_normalize(Src.of(tex))).text
    masked = _spans(text, _COMMAND_ARGUMENT) + _spans(text, _SUBSCRIPT_SPAN) + _spans(text, _LABEL_SPAN)
    exponents = _spans(text, _EXPONENT_OF_E)
    for run in re.finditer(r"(?<![\\A-Za-z])[A-Za-z]+", text):
        for k, ch in enumerate(run.group(0)):
            at = run.start() + k
            if ch == "i" and not any(a <= at < b for a, b in masked) and any(a <= at < b for a, b in exponents):
                return True
    return False


def subscripts_with_i(text: str) -> bool:
    r"""Whether ``text`` uses ``i`` as an index in a subscript (``\theta_i``, ``x_{2i}``, ``\lambda_{i+1}``).

    Example:
        >>> subscripts_with_i(r"\theta_i = b^{-2i/d}"), subscripts_with_i(r"e^{i x} = \cos x + i \sin x")
        (True, False)
    """
    return bool(re.search(r"_\s*(?:i(?![A-Za-z])|\{[^{}]*(?<![\\A-Za-z])i(?![A-Za-z])[^{}]*\})", text))


#: a whole column or row taken from an array, ``W[:, t]`` or ``W[t, :]``
_COLUMN_SLICE = re.compile(r"\[\s*:\s*,|,\s*:\s*\]")


def _check(src: Src, scope: Scope) -> None:
    """Refuse what cannot be read: ellipses, unknown commands and environments, unbalanced brackets,
    and a plain function name close to a known one (``cosine(x)``)."""
    check_ellipsis(src.text, src)
    for m in _COMMAND.finditer(src.text):
        if m.group(1) == "mathbb" and _EXPECTATION.match(src.text, m.start()):
            continue  # an expectation over the names of its subscript: read by linearity
        if m.group(1) == "mathbb" and in_inner_field_mark(src.text, m.start()):
            continue  # the field an inner product is taken over, \rangle_\mathbb{R} (.inner_fields)
        if m.group(1) == "mathbb" and re.match(r"\s*\{\s*E\s*\}", src.text[m.end() :]):
            raise src.error(
                "an expectation \\mathbb{E}[...] is not read (what it averages over, and how, is not in the formula)",
                m.start(),
            )
        if m.group(1) == "det" and DETERMINANT.match(src.text, m.start()):
            continue  # a determinant of the bracket after it (.determinants)
        if m.group(1) == "max" and read_maximum_at(src.text, m.start()) is not None:
            continue  # the largest value of a bracketed body over one index (.maxima)
        if m.group(1) in ("max", "min") and extremum_list_at(src.text, m.start()) is not None:
            continue  # the largest or smallest of a bracketed list (.maxima)
        if m.group(1) in ("max", "min") and re.search(r"_\s*\{?\s*$", src.text[: m.start()]):
            raise src.error(f"\\{m.group(1)} in a subscript (a label, as in \\lambda_{{\\max}}) is not read", m.start())
        if m.group(1) in ("max", "min"):
            raise src.error(
                f"\\{m.group(1)} is read only of a bracketed list of two values or more (\\max(a, b)) or of a "
                "bracketed body over one index (\\max_i |h_i|); this one is not read",
                m.start(),
            )
        if m.group(1) is not None and m.group(1) not in KNOWN_COMMANDS:
            raise src.error(
                f"unknown LaTeX command \\{m.group(1)} (write matrices as \\begin{{pmatrix}} ... \\end{{pmatrix}}, "
                "or use the SymPy syntax)",
                m.start(),
            )
    slicing = _COLUMN_SLICE.search(src.text)
    if slicing is not None:  # W_e[:, t]: a column of W_e as numpy writes it
        raise src.error(
            "W[:, t] (a column, or W[t, :] a row, of a matrix, as arrays are sliced in code) is not read; "
            "write the column as a name of its own",
            slicing.start(),
        )
    for m in re.finditer(r"\\(begin|end)\s*\{\s*([A-Za-z*]*)\s*\}", src.text):
        if m.group(2) not in _MATRIX_ENVS:
            raise src.error(f"unknown environment {m.group(2)!r} (known: {', '.join(_MATRIX_ENVS)})", m.start())
    stack: list[tuple[str, int]] = []
    for pos, ch in enumerate(src.text):
        if ch in "([{":
            stack.append((ch, pos))
        elif ch in ")]}":
            if not stack or "([{".index(stack[-1][0]) != ")]}".index(ch):
                raise src.error(f"unmatched '{ch}'", pos)
            stack.pop()
    if stack:
        ch, pos = stack[-1]
        raise src.error(f"'{ch}' is never closed", pos)
    for m in _PLAIN_CALL.finditer(src.text):
        name = m.group(1)
        if name in PLAIN_FUNCTIONS or name in ("Re", "Im") or name in scope.functions:
            continue
        close = suggest_function(name, [*PLAIN_FUNCTIONS, "Re", "Im", *scope.functions])
        if close:
            hint = close if close in scope.functions else "\\" + close
            raise src.error(f"unknown function {name!r}; did you mean {hint}?", m.start())


def check_ellipsis(text: str, src: Src | None = None) -> None:
    """Refuse ``\\cdots``, ``...``: terms the reader cannot see (in either syntax)."""
    m = _ELLIPSIS.search(text)
    if m:
        src = src or Src.of(text)
        raise src.error(
            f"{m.group(0).strip()!r} stands for terms the reader cannot see; write the terms out (for a concrete size)",
            m.start(),
        )


def _plain_functions(src: Src) -> Src:
    """``cos(x)`` -> ``\\cos(x)`` (and sin, exp, ... ): a word without a backslash is a product of letters to LaTeX."""
    return src.sub(
        _PLAIN_CALL,
        lambda m: "\\" + m.group(1) if m.group(1) in PLAIN_FUNCTIONS else m.group(1),
    )


def _trig_arguments(src: Src, spaced: frozenset[int] = frozenset()) -> tuple[Src, list[int]]:
    """The narrow reading: a trig function's argument written without parentheses is parenthesized.

    ``\\cos m\\theta_i x_i`` -> ``\\cos(m\\theta_i) x_i``: the argument stops before a subscripted
    Latin letter (a component, not part of an angle) or any operator, but takes in a letter
    raised to a negative power (``\\cos m b^{-2i/d}``: the angle m b^{-2i/d});
    ``\\cos(m-n)\\theta`` -> ``\\cos((m-n)\\theta)``: a parenthesized argument followed at once by a
    Greek letter takes it in. A braced group after the function is one atom (``\\cos{m\\theta}``); a
    factor after an explicit space (``spaced``: its columns) or the letter i is refused (:mod:`.trig_bounds`).
    Returns the text and the columns of the functions it changed.
    """
    pos = 0
    changed: list[int] = []
    while True:
        m = _TRIG.search(src.text, pos)
        if not m:
            return src, changed
        j = m.end()
        pw = _POWER.match(src.text, j)
        if pw:
            j = pw.end()
        while j < len(src.text) and src.text[j] == " ":
            j += 1
        rest = src.text[j:]
        if rest.startswith("(") or rest.startswith("\\left("):
            start = j + (5 if rest.startswith("\\left") else 0)
            end = skip_group(src.text, start)
            g = _ATOM.match(src.text, end) if end > 0 else None
            if g and g.group("greek"):
                k = g.end()
                sc = _SCRIPT.match(src.text, k)
                k = sc.end() if sc else k
                changed.append(src.col(m.start()))
                src = src.splice(k, k, ")").splice(j, j, "(")
                pos = k + 2
            else:
                pos = max(end, j + 1)
            continue
        k, first = j, True
        while True:
            braced = braced_atom_end(src.text, k) if first else -1
            a = _ATOM.match(src.text, k) if braced < 0 else None
            if not a and braced < 0:
                break
            end = a.end() if a else braced
            sc = _SCRIPT.match(src.text, end)
            power = sc is not None and _NEGATIVE_POWER.fullmatch(src.text, end, sc.end())
            scripted = sc is not None and not (power and _SCRIPT.match(src.text, sc.end()) is None)
            while sc:
                end = sc.end()
                sc = _SCRIPT.match(src.text, end)
            if a and a.group("letter") and scripted and not first:
                break
            problem = "" if first or not a else spaced_factor_problem(src, k, a, scripted, spaced)
            if problem:
                raise src.error(problem, m.start())
            k, first = end, False
        if k > j and _BRACKET_AFTER.match(src.text, k):
            # \sin \omega(p+k): sin(omega) times (p+k), or sin(omega (p+k))? both are written; not guessed
            raise src.error(
                "a trig argument without parentheses runs into a bracket: the function of the name alone, or of "
                "the product with the bracket? write the parentheses",
                m.start(),
            )
        if k > j:
            changed.append(src.col(m.start()))
            src = src.splice(k, k, ")").splice(j, j, "(")
            pos = k + 2
        else:
            pos = j + 1


#: an entry of ``[a \\\\ b]`` read as a column: one name or number, with its subscripts and superscripts
_ONE_ENTRY = re.compile(
    r"\s*-?\s*(?:\\[A-Za-z]+\s*\{[^{}]*\}|\\?[A-Za-z]+|\d+)(?:\s*[_^]\s*(?:\{[^{}]*\}|\\?[A-Za-z0-9]+))*\s*"
)
#: ``R^T(a)``, ``R^{-1}(a)``, ``R^\\top(a)``: an exponent between a function's name and its bracket
_RAISED_BEFORE_CALL = re.compile(
    r"(?:(?<![A-Za-z\\])|(?<=\^T)|(?<=\^\{T\}))(?P<name>[A-Za-z])\s*\^\s*(?P<exp>\{\s*(?:T|\\top|\\intercal|-\s*1)\s*\}|T(?![A-Za-z])|\\top(?![A-Za-z]))"
    r"\s*\("
)


# --------------------------------------------------------------------------- the reader


@dataclass
class _Reader:
    """Reads pieces of one side; placeholders and their values are shared by every piece."""

    scope: Scope
    original: str
    offset: int
    values: dict[str, Any] = field(default_factory=dict)
    #: placeholders of lists in square brackets written without ^T: a row where a matrix follows (.written_rows)
    listed: set[str] = field(default_factory=set)
    #: reading inside a real or an imaginary part, where a ``\\cdot`` is the product (.complex_dots)
    in_part: bool = False
    #: reading a cell of a written-out matrix, where a bold zero is a zero entry or block, never read as a matrix
    in_cell: bool = False

    def placeholder(self, value: Any) -> str:
        name = _PREFIX + _names(len(self.values))
        self.values[name] = value
        return r" \mathit{" + name + "} "

    def piece(self, src: Src) -> str:
        a, b = src.col(0) - self.offset, src.col(len(src.text)) - self.offset
        return self.original[max(a, 0) : max(b, a + 1)].strip() or src.text.strip()

    # ---- the pipeline

    def read(self, src: Src, bound: frozenset[str] = frozenset()) -> Any:
        src = src.strip()
        if not src.text:
            raise src.error("empty expression", 0)
        for step in (
            self.expectations,
            self.maxima,
            self.primed_calls,
            self.slices,
            self.labels,
            self.raised_matrix_calls,
            self.determinants,
            self.matrices,
            self.bold_zeros,
            self.inner_products,
            self.part_calls,
            self.text_calls,
            self.upright_patterns,
            self.transposed_pairs,
            self.names,
            self.patterns,
            self.tuples,
            self.hadamard,
            self.complex_dots,
        ):
            src = step(src, bound)
        text = self.rewrite(src)
        parsed = self.parse(text, src)
        try:
            value = build(parsed, self.values, self.scope, bound, frozenset(self.listed))
        except ClaimParseError as exc:
            if exc.position is not None:
                raise
            raise src.error(str(exc), 0) from None
        except (ClaimLimitError, RecursionError, MemoryError):
            raise
        except Exception as exc:
            raise src.error(f"cannot read LaTeX {self.piece(src)!r}: {exc}", 0) from None
        return collapse(apply_domains(value, self.scope.domains))

    def parse(self, text: str, src: Src) -> Any:
        try:
            from sympy.parsing.latex import (  # needs the ANTLR runtime: imported when a LaTeX claim is read
                LaTeXParsingError,
            )
        except ImportError as exc:  # pragma: no cover - SymPy without its LaTeX parser package
            raise UsageError(antlr_runtime_problem(exc)) from None
        known = known_parse(text)
        if known is not None:
            return known
        try:  # strict: text the grammar cannot consume is an error, not silently dropped
            with warnings.catch_warnings():
                warnings.filterwarnings("ignore", message=r"antlr4\..* is not installed", category=UserWarning)
                tree = parse_latex(text)  # SymPy's parse, SLL first (see .latex_parser)
        except LaTeXParsingError as exc:
            first = str(exc).splitlines()[0]
            raise src.error(f"cannot parse LaTeX {self.piece(src)!r}: {first}", _caret(str(exc), text)) from None
        except ImportError as exc:
            raise UsageError(antlr_runtime_problem(exc)) from None
        except (RecursionError, MemoryError):
            raise
        except Exception as exc:
            raise src.error(f"cannot parse LaTeX {self.piece(src)!r}: {str(exc).splitlines()[0]}", 0) from None
        font = font_left_as_name(
            [str(getattr(a, "name", a)) for a in tree.atoms(Symbol, sympy.core.function.AppliedUndef)]
            if isinstance(tree, sympy.Basic)
            else []
        )
        if font is not None:  # \\mathrm{x_i}: no rule read the command, and the parser made it a factor
            raise src.error(f"\\{font}{{...}} around {self.piece(src)!r} is not read (write the name without it)", 0)
        remember_parse(text, tree)
        if isolate.in_child():  # the caller keeps it too, for the children it forks later
            try:
                isolate.send(("parsed", text, encode_tree(tree)))
            except Exception:  # pragma: no cover - a tree that does not pickle is just not kept
                pass
        return tree

    # ---- structural passes: each turns a construct into a placeholder

    def slices(self, src: Src, bound: frozenset[str]) -> Src:
        """``q_{[2i:2i+1]}``: the pair of q's entries 2i and 2i+1 taken as one complex number, the entry i of a
        sequence of its own (``q⟦⟧_{i}``, :data:`PAIR_MARK`). Only a slice of two entries from an even index is
        read; another slice is not."""
        pos = 0
        while m := _SLICE.search(src.text, pos):
            start, stop = (self.read(src.slice(m.start(k), m.end(k)), bound | {"i", "e"}) for k in (3, 4))
            pair = sympy.expand(start / 2)
            whole = all(c.is_integer for c in sympy.Add.make_args(pair) for c in [c.as_coeff_Mul()[0]])
            if isinstance(start, MatrixBase) or sympy.expand(stop - start - 1) != 0 or not whole:
                raise src.error(f"the slice {m.group(0).strip()} is not read (only a pair [2j:2j+1] is)", m.start())
            name = m.group(1).lstrip("\\") + PAIR_MARK + "_{" + str(pair) + "}"
            star = "^{*}" if m.group(2) else ""  # k^*_{[2j:2j+1]}: the pair's conjugate
            src = src.splice(m.start(), m.end(), self.placeholder(Symbol(name, complex=True)) + star)
            pos = m.start()
        return src

    def labels(self, src: Src, bound: frozenset[str]) -> Src:
        """Names SymPy's parser cannot take: ``q^{(1)}`` (a label, not a power), ``a_{m,n}``, ``R^d_{\\Theta, m}``."""
        src = components_as_labels(src, self.scope.components)

        def named(label: str) -> str:
            label = _PLACED.sub(lambda m: _piece_name(self.values.get(m.group(1), m.group(1))), label)
            d = self.scope.symbols.get(label)
            value = d.body if d is not None else apply_domains(Symbol(label), self.scope.domains)
            return self.placeholder(value)

        def member(m: re.Match[str]) -> str:
            # v_{pos+k}^{(i)} where the family v_{pos}^{(i)} is defined: its body at the subscript and the label
            d = self.scope.patterns.get(family_key(m.group(1).split("_")[0]))
            under = m.group(1).find("_")
            if d is None or under < 0 or "," in m.group(2):  # W^{(1,2)}: a pair, never an exponent, labels an entry
                base = re.sub(r"^\\mathrm\{([A-Za-z]+)\}", r"\1", m.group(1)).lstrip(chr(92))
                return named(f"{base}^{{({re.sub(r'[ ]+', '', m.group(2))})}}")
            braced = m.group(1)[under + 1] == "{"
            sub = src.slice(m.start(1) + under + 1 + braced, m.end(1) - braced)
            at = [self.read(piece, bound | {"i", "e"}) for piece in (sub, src.slice(m.start(2), m.end(2)))]
            return self.placeholder(d.apply(at))

        src = src.sub(_LABEL, member)

        def comma(m: re.Match[str]) -> str:
            name = re.sub(r"\s+", "", m.group(0)).lstrip("\\")
            d = self.scope.patterns.get(comma_pattern_key(name))  # R_{\\theta,m}: the pattern R_{\\theta,*}
            pair = pair_member(name) if d is None else None
            if pair and pair_key(pair[0]) in self.scope.patterns and name not in self.scope.symbols:
                # R_{n_1, n_2} where R_{m_1, m_2} is defined: the body at both values
                return self.placeholder(self.scope.patterns[pair_key(pair[0])].apply(pair_values(m)))
            if d is None or name in self.scope.symbols:
                return named(name)
            last = m.group(0).rstrip()[:-1].rsplit(",", 1)[1]
            offset = m.start() + len(m.group(0).rstrip()) - 1 - len(last)
            index = self.read(src.slice(offset, offset + len(last)), bound | {"i", "e"})
            return self.placeholder(d.apply([index]))

        def pair_values(m: re.Match[str]) -> list[Any]:
            open_ = m.start() + m.group(0).index("{", m.group(0).index("_"))
            close = m.start() + len(m.group(0).rstrip()) - 1
            cut = src.text.index(",", open_)
            return [self.read(src.slice(a, b), bound | {"i", "e"}) for a, b in ((open_ + 1, cut), (cut + 1, close))]

        def superscript_last(m: re.Match[str]) -> str:
            # R_{\Theta,t}^d, the family R^d_{\Theta,t} defined: its superscript written last
            name = re.sub(r"\s+", "", m.group("name")).lstrip("\\")
            base, _, sub = name.partition("_")
            sup = re.sub(r"\s+", "", m.group("sup"))
            key = comma_pattern_key(f"{base}^{sup if sup.startswith('{') else sup}_{sub}")
            d = self.scope.patterns.get(key)
            if d is None:
                return m.group(0)
            last = m.group("name").rstrip()[:-1].rsplit(",", 1)[1]
            offset = m.start() + len(m.group("name").rstrip()) - 1 - len(last)
            index = self.read(src.slice(offset, offset + len(last)), bound | {"i", "e"})
            return self.placeholder(d.apply([index]))

        src = src.sub(_COMMA_SUBSCRIPT_LAST, superscript_last)
        return src.sub(_COMMA_SUBSCRIPT, comma)

    def maxima(self, src: Src, bound: frozenset[str]) -> Src:
        """``\\max_i |X_i|``: an unknown at least the body at every index (:mod:`.maxima`)."""
        return maxima_read(src, bound, self.read, self.placeholder)

    def primed_calls(self, src: Src, bound: frozenset[str]) -> Src:
        """``a''(s)``: a derivative of a defined function, or a function of its own (:mod:`.primed_calls`)."""
        probe = functools.partial(_probe, Scope(domains=self.scope.domains))
        return primed_calls_read(src, bound, self.scope, self.read, self.placeholder, probe)

    def expectations(self, src: Src, bound: frozenset[str]) -> Src:
        """``\\mathbb{E}_{q,k}[X]``: X read, then its expectation by linearity (:mod:`.expectation`)."""
        while (m := _EXPECTATION.search(src.text)) is not None:
            end = skip_group(src.text, m.end() - 1)
            names = random_names(m.group("sub"))
            if end < 0 or not names:
                raise src.error("an expectation whose subscript or bracket is not read", m.start())
            body = src.slice(m.end(), end - 1)
            body = body.slice(0, len(re.sub(r"\\(?:right|[Bb]igg?[lr]?)\s*$", "", body.text.rstrip())))
            try:
                value = expectation(self.read(body, bound), names, ",".join(names))
            except ValueError as exc:
                raise src.error(str(exc), m.start()) from None
            src = src.splice(m.start(), end, self.placeholder(value))
        return src

    def raised_matrix_calls(self, src: Src, bound: frozenset[str]) -> Src:
        """``R^T(a)``, ``R^{-1}(a)``: the transpose or inverse of the matrix ``R(a)`` -- where ``R`` is a function whose
        value is a matrix (the rotation, or a function the document defined so), written ``R(a)^T``, ``R(a)^{-1}``.

        Of a number ``a`` the inverse function of a matrix-valued ``R`` means nothing (it takes a matrix), so the
        inverse of the value is the one reading; a function whose value is a number is left as written."""
        pos = 0
        while m := _RAISED_BEFORE_CALL.search(src.text, pos):
            name, end = m.group("name"), skip_group(src.text, m.end() - 1)
            if end < 0 or not self.matrix_function(name, bound):
                pos = m.end()
                continue
            exponent = re.sub(r"\s+", "", m.group("exp")).strip("{}")
            exponent = "T" if exponent in ("\\top", "\\intercal") else exponent
            call = src.text[m.end() - 1 : end]
            src = src.splice(m.start("name"), end, f"{name}{call}^{{{exponent}}}")
            pos = m.start("name") + 1
        return src

    def matrix_function(self, name: str, bound: frozenset[str]) -> bool:
        """Whether ``name`` is a function whose value is a matrix: the rotation ``R`` (not otherwise defined or
        bound), or a one-argument function the document defined with a matrix."""
        scope = self.scope
        if name in bound:
            return False
        if name == "R" and not scope.defines("R"):
            return True
        d = scope.functions.get(name)  # R too, where the document defines it (R(\theta) = a matrix)
        return d is not None and len(d.params) == 1 and isinstance(d.body, MatrixBase)

    def matrices(self, src: Src, bound: frozenset[str]) -> Src:
        while True:
            m = re.search(r"\\begin\s*\{\s*(" + "|".join(_MATRIX_ENVS) + r")\s*\}", src.text)
            if not m:
                return src
            env = m.group(1)
            end = closing(src.text, m.start(), r"\begin{", r"\end{")
            close = re.compile(r"\\end\s*\{\s*" + env + r"\s*\}")
            cm = close.match(src.text, end) if end >= 0 else None
            if cm is None:
                raise src.error(f"\\begin{{{env}}} is never ended", m.start())
            body = src.slice(m.end(), end)
            rows = [r for r in split_top(body, "\\\\", ((r"\begin{", r"\end{"),)) if r.text.strip()]
            was, self.in_cell = self.in_cell, True
            try:
                cells = [[self.read(c, bound) for c in split_top(r, "&", ((r"\begin{", r"\end{"),))] for r in rows]
            finally:
                self.in_cell = was
            if not cells or len({len(r) for r in cells}) != 1:
                raise src.error(f"the rows of this {env} have different lengths", m.start())
            for r in cells:
                for c in r:
                    if isinstance(c, MatrixBase):
                        raise src.error("a matrix inside a matrix cell cannot be read", m.start())
            start, stop = m.start(), cm.end()
            lm = re.search(r"\\left\s*[(\[]\s*$", src.text[:start])
            rm = re.match(r"\s*\\right\s*[)\]]", src.text[stop:])
            if lm and rm:
                start, stop = lm.start(), stop + rm.end()
            src = src.splice(start, stop, self.placeholder(check_matrix(ImmutableMatrix(cells))))

    def bold_zeros(self, src: Src, bound: frozenset[str]) -> Src:
        """``\\boldsymbol{0}`` among general matrices, outside a written-out matrix: the square zero matrix of the
        general size (``\\exp(\\boldsymbol{0})`` is then the identity). Read so nowhere else."""
        if not self.scope.general_matrices or self.in_cell:
            return src
        zero = sympy.ZeroMatrix(DIMENSION, DIMENSION)
        while m := BOLD_ZERO.search(src.text):
            src = src.splice(m.start(), m.end(), self.placeholder(zero))
        return src

    def inner_products(self, src: Src, bound: frozenset[str]) -> Src:
        while True:
            m = re.search(r"(?:\\left\s*)?\\langle(?![A-Za-z])", src.text)
            if m:
                end = closing(src.text, src.text.index("\\langle", m.start()), "\\langle", "\\rangle")
                if end < 0:
                    raise src.error("\\langle is never closed by \\rangle", m.start())
                inner_start = src.text.index("\\langle", m.start()) + len("\\langle")
                body = src.slice(inner_start, end)
                inner_end = re.sub(r"\\right\s*$", "", body.text.rstrip())
                body = body.slice(0, len(inner_end))
                stop = end + len("\\rangle")
            else:
                m = _angle_open(src.text)
                if m is None:
                    return src
                end = _angle_close(src.text, m.start())
                if end < 0:
                    raise src.error("'<' is never closed by '>' (an inner product is written <a, b>)", m.start())
                body = src.slice(m.end(), end)
                body = body.slice(0, len(re.sub(r"\\right\s*$", "", body.text.rstrip())))  # \left< a, b \right>
                stop = end + 1
            field_name, stop = inner_field_at(src.text, stop)
            convention = {"R": "real", "C": self.scope.inner_product_complex}.get(field_name, self.scope.inner_product)
            parts = split_top(body, ",", (("\\langle", "\\rangle"),))
            if len(parts) != 2:
                raise src.error(f"an inner product has two sides, found {len(parts)}", m.start())
            a, b = (self.read(p, bound) for p in parts)
            try:
                value = self.general_inner(a, b) if self.scope.general_matrices else None
                value = inner_product(a, b, convention) if value is None else value
            except ValueError as exc:
                raise src.error(str(exc), m.start()) from None
            if self.scope.generic_blocks and isinstance(a, MatrixBase):
                value = block_share(value, sums=self.scope.block_sums)
            opened = re.search(r"\\left\s*$", src.text[: m.start()]) if src.text[m.start()] == "<" else None
            src = src.splice(opened.start() if opened else m.start(), stop, self.placeholder(value))

    def general_inner(self, a: Any, b: Any) -> Any:
        """``<a, b>`` of general vectors as ``a^T b`` where every vector named in them is real and no written-out
        matrix among them holds the imaginary unit, else None."""
        value = general_inner(a, b)
        named = [s for v in (a, b) if isinstance(v, sympy.Basic) for s in v.atoms(sympy.MatrixSymbol)]
        real = all(domain_symbol(s.name, self.scope.domains).is_real for s in named if written_value(s) is None)
        written = [w for s in named if (w := written_value(s)) is not None]
        return value if real and not any(w.has(sympy.I) for w in written) else None

    def part_calls(self, src: Src, bound: frozenset[str]) -> Src:
        pos = 0
        while True:
            m = _PART_CALL.search(src.text, pos)
            if not m:
                return src
            part = m.group(1) or m.group(2) or m.group(3)
            start = m.end()
            if src.text.startswith("\\left", start):
                start += 5
            end = skip_group(src.text, start)
            if end < 0:  # pragma: no cover - brackets were checked
                raise src.error(f"\\{part}'s bracket is never closed", m.start())
            inner = src.slice(start + 1, end - 1)
            inner = inner.slice(0, len(re.sub(r"\\right\s*$", "", inner.text.rstrip())))
            held, self.in_part = self.in_part, True  # a \cdot inside is the product (.complex_dots)
            try:
                value = self.read(inner, bound)
            finally:
                self.in_part = held
            fn = sympy.re if part == "Re" else sympy.im
            if isinstance(value, MatrixBase):
                value = value.applyfunc(fn)
            else:
                value = fn(value)
            src = src.splice(m.start(), end, self.placeholder(value))
            pos = m.start()

    def determinants(self, src: Src, bound: frozenset[str]) -> Src:
        """``\\det(M)``: the determinant of the square matrix read inside the bracket (.determinants)."""
        return determinants_read(src, lambda piece: self.read(piece, bound), self.placeholder)

    def text_calls(self, src: Src, bound: frozenset[str]) -> Src:
        pos = 0
        while True:
            found = [
                (m.start(), m.group(1).replace("\\_", "_"), m.end()) for m in [_TEXT_CALL.search(src.text, pos)] if m
            ]
            found += [c for c in [_plain_call(src.text, pos, self.scope)] if c is not None]
            found += [c for c in [labelled_call(src.text, pos, self.scope, bound)] if c is not None]  # a_{\text{x}}(s)
            found += [
                (m.start(), _set_name(m), m.end())
                for m in [_SET_NAME.search(src.text, pos)]
                if m and re.match(r"\s*(?:\\left\s*)?\(", src.text[m.end() :])
            ]
            if not found:
                return src
            start, name, after = min(found)
            after += len(src.text[after:]) - len(src.text[after:].lstrip())
            if name in ("Re", "Im") or name in PLAIN_FUNCTIONS:  # pragma: no cover - handled elsewhere
                pos = after
                continue
            if name == _UNIT_NAME:  # \text{i}(m - n): the imaginary unit times the bracket, never a function
                pos = after
                continue
            open_ = after + (5 if src.text.startswith("\\left", after) else 0)
            end = skip_group(src.text, open_)
            inner = src.slice(open_ + 1, end - 1)
            inner = inner.slice(0, len(re.sub(r"\\right\s*$", "", inner.text.rstrip())))
            args = [self.read(p, bound) for p in split_top(inner, ",")]
            d = self.scope.functions.get(name)
            if d is not None:
                try:
                    value = d.apply(args)
                except ClaimParseError as exc:
                    raise src.error(str(exc), start) from None
            elif name in DIAGONAL_CALLS:  # \operatorname{diag}(a, b), \mathrm{blockdiag}(A, B): see .diag_lists
                try:
                    value = diagonal_call(name, args)
                except ValueError as exc:
                    raise src.error(str(exc), start) from None
            elif name == "atan2" and len(args) == 2 and not any(isinstance(a, MatrixBase) for a in args):
                value = sympy.atan2(*args)  # the angle of the point (x, y), written atan2(y, x)
            elif any(isinstance(a, MatrixBase) for a in args):
                raise src.error(f"{name} is not defined (a vector or matrix goes in); define it first", start)
            else:
                value = sympy.Function(name, commutative=not self.scope.ordered_functions)(*args)
            src = src.splice(start, end, self.placeholder(value))
            pos = start

    def upright_patterns(self, src: Src, bound: frozenset[str]) -> Src:
        """``\\mathrm{PE}_{n}`` where the document defines ``\\mathrm{PE}_m``: the definition at n, read before upright
        words become names of their own (whichever upright command the use is written with)."""
        for key, d in self.scope.patterns.items():
            word = _upright_word(key)
            if word is None:
                continue
            rx = re.compile(
                _UPRIGHT_COMMAND + r"\s*\{\s*" + re.escape(word) + r"\s*\}\s*_\s*(?:\{|(\\[A-Za-z]+|[A-Za-z0-9]))"
            )
            while True:
                m = rx.search(src.text)
                if not m:
                    break
                end, sub = _subscript(src, m)
                if "," in sub.text:
                    raise src.error(
                        f"{m.group(0).rstrip('{_ ')} is defined with one index (line {d.line}) and used with several",
                        m.start(),
                    )
                index = self.read(sub, bound | {"i", "e"})
                src = src.splice(m.start(), end, self.placeholder(d.apply([index])))
        return src

    def transposed_pairs(self, src: Src, bound: frozenset[str]) -> Src:
        """``q_i^T k_j`` of two vectors the document never wrote out: one real name (:mod:`.transposed_pairs`)."""
        if self.scope.general_matrices or not self.scope.array_names:
            return src
        scope = self.scope

        def defined(name: str) -> bool:
            base = name.split("_")[0]
            return name in bound or scope.defines(name) or base in scope.patterns or base in scope.functions

        complex_names = frozenset(k for k, v in scope.domains.items() if v == "complex")
        found = inner_product_names(src.text, scope.array_names, defined, complex_names)
        for start, end, name in reversed(found):
            src = src.splice(start, end, self.placeholder(name))
        return src

    def names(self, src: Src, bound: frozenset[str]) -> Src:
        """One symbol for an upright word (``\\mathrm{Attention}``) and a set-subscripted name (``W_{\\{q,k\\}}``)."""

        def symbol(name: str) -> str:
            d = self.scope.symbols.get(name)
            value = d.body if d is not None and name not in bound else apply_domains(Symbol(name), self.scope.domains)
            return self.placeholder(value)

        src = src.sub(_SET_NAME, lambda m: symbol(_set_name(m)))
        src = self.norms(src, bound)
        src = _upright_subscripted(src, symbol)
        src = src.sub(_SUBSCRIPT_WORD, lambda m: symbol(m.group(1).lstrip("\\") + "_" + (m.group(2) or m.group(3))))
        part = re.search(r"\\(?:operatorname|mathrm|text|textrm|mathit)\s*\{\s*(?:Re|Im)\s*\}", src.text)
        if part:  # a real or imaginary part without its argument in brackets: which factors it takes is unclear
            raise src.error("write the argument of a real or imaginary part in brackets: \\Re[...]", part.start())
        return src.sub(_UPRIGHT_NAME, lambda m: symbol(m.group(1).replace("\\_", "_")))

    def norms(self, src: Src, bound: frozenset[str] = frozenset()) -> Src:
        """``\\|D\\|`` (a size, or the length of a vector): one positive name ``‖D‖`` of its own.

        The norm of a name the document does not define is read as a name, never as a function of the
        name inside it; a step that also uses that name is not refuted (:func:`norm_names`), nor one where the
        document defines a family on its letter (``\\|q\\|`` beside ``q_m = ...``: the audit's doubts). The norm of a
        vector the document writes out is its Euclidean length (:mod:`.written_norms`); that of another
        defined name, of a member of a defined family, or of an expression is not read. A bare letter of a
        defined family (``q`` beside ``q_m``) is no member: its norm is a name.
        """

        def length(m: re.Match[str]) -> str:
            inner = re.sub(r"[\s{}]", "", m.group(1)).lstrip("\\")
            value = None if inner in bound else euclidean_norm_of(self.scope.symbols.get(inner))
            if value is not None and self.scope.generic_blocks:  # one block of a longer vector: its share, summed
                value = sympy.sqrt(block_share(value**2, sums=self.scope.block_sums))
            return m.group(0) if value is None else self.placeholder(value)

        src = src.sub(EUCLIDEAN_NORM, length)
        if self.scope.general_matrices:  # \|u\|^2 of a general vector u is u^T u, as that of an expression
            src = self.expression_norms(src, bound, names=True)

        def norm(m: re.Match[str]) -> str:
            inner = re.sub(r"[\s{}]", "", m.group(1)).lstrip("\\")
            named = Symbol(NORM_OPEN + inner + NORM_CLOSE + norm_subscript(m), positive=True)
            if polar_modulus(self.scope.symbols.get(inner), named):  # q = \|q\| e^{i t}: the modulus it writes
                return self.placeholder(named)
            # a bare letter whose family is defined (q beside q_m = ...) is no member: its norm is a name (a step
            # refuted through it is not decided: default_doubts.norm_of_family)
            if inner in self.scope.symbols or ("_" in inner and inner.split("_")[0] in self.scope.patterns):
                raise src.error(f"the norm of {inner}, which the document defines, is not read", m.start())
            return self.placeholder(named)

        src = src.sub(NAMED_NORM, norm)
        src = self.expression_norms(src, bound)
        at = src.text.find("\\|")
        if at >= 0:
            raise src.error("a norm \\|...\\| of an expression (not one name) is not read", at)
        return src

    def expression_norms(self, src: Src, bound: frozenset[str], *, names: bool = False) -> Src:
        """``\\|E\\|`` (or ``\\|E\\|_2``) of an expression that reads as a written-out column: its Euclidean length
        (:mod:`.written_norms`); in one block of longer vectors (``Scope.generic_blocks``) the block's share of the
        squared length, summed over every block, under the root. Squared, of a real general column: ``E^T E``. Any
        other norm is left as written (``names``: only squared ones, a single name among them, are read here)."""
        for start, close, end, squared, sub in reversed(norm_pairs(src.text)):
            body = src.slice(start + 2, close)
            if sub not in ("", "2") or not body.text.strip() or (names and not squared):
                continue
            try:
                value = self.read(body, bound)
            except AmbiguousReading:
                raise  # two readings of the body (a bare i): the caller reads the step once per choice
            except (ClaimParseError, ClaimLimitError):
                continue  # left as written: not read, as before
            total = column_norm_squared(value)
            if total is not None and self.scope.generic_blocks:
                total = block_share(total, sums=self.scope.block_sums)
            if total is None and squared and self.scope.general_matrices:
                total = general_norm_squared(value, self.scope.domains)
                if total is not None:
                    src = src.splice(start, end, self.placeholder(total))
                continue
            if total is not None:
                norm = total if squared else sympy.sqrt(total)
                src = src.splice(start, end, self.placeholder(norm))
        return src

    def patterns(self, src: Src, bound: frozenset[str]) -> Src:
        for base in sorted(self.scope.patterns, key=len, reverse=True):
            d = self.scope.patterns[base]
            rx = re.compile(re.escape(base) + r"(?![A-Za-z])\s*_\s*(?:\{|(\\[A-Za-z]+|[A-Za-z0-9]))")
            pos = 0
            while True:
                m = rx.search(src.text, pos)
                if not m:
                    break
                if _inside_command(src.text, m.start()):  # the R of \Re, the c of \cos
                    pos = m.start() + 1
                    continue
                end, sub = _subscript(src, m)
                key = re.sub(r"[\s{}]", "", sub.text)
                components = _components(d, base)
                if key in components:  # q_1 where q_m = (q_1 + i q_2) e^{i m theta}: the component
                    pos = end
                    continue
                if components and re.fullmatch(r"\d+", key):
                    raise src.error(
                        f"{base}_{key} is ambiguous: {base}_{{{d.params[0]}}} at {d.params[0]} = {key} (line "
                        f"{d.line}), or a component like {base}_{min(components)}",
                        m.start(),
                    )
                index = self.read(sub, bound | {"i", "e"})
                src = src.splice(m.start(), end, self.placeholder(d.apply([index])))
                pos = m.start()
        return src

    def tuples(self, src: Src, bound: frozenset[str]) -> Src:
        pos = 0
        while True:
            m = re.compile(r"\\left\s*[(\[]|[(\[]").search(src.text, pos)
            if not m:
                return src
            open_ = m.end() - 1
            end = skip_group(src.text, open_)
            if end < 0 or not _OPERAND_BEFORE.search(src.text[: m.start()]):
                pos = m.end()
                continue
            inner = src.slice(open_ + 1, end - 1)
            inner = inner.slice(0, len(re.sub(r"\\right\s*$", "", inner.text.rstrip())))
            parts = split_top(inner, ",", (("\\langle", "\\rangle"),))
            t = _TRANSPOSE_AFTER.match(src.text, end)
            rows = len(parts) < 2 and t is None
            if rows:  # [a \\ b]: a column written with row breaks (transposed, it would be a row: not read)
                parts = split_top(inner, "\\\\", (("\\langle", "\\rangle"),))
            # only entries that are one name or number each: a long sum broken over lines inside brackets is no column
            if len(parts) < 2 or (rows and not all(_ONE_ENTRY.fullmatch(p.text) for p in parts)):
                pos = m.end()
                continue
            items = [self.read(p, bound) for p in parts]
            if any(isinstance(x, MatrixBase) for x in items):
                raise src.error("a tuple of vectors or matrices cannot be read", m.start())
            stop = end
            if t:
                stop = t.end()
            name = self.placeholder(check_matrix(ImmutableMatrix(items)))
            if t is None and not rows and src.text[open_] == "[":  # maybe a row (.written_rows)
                self.listed.add(name.strip()[len("\\mathit{") : -1])
            src = src.splice(m.start(), stop, name)
            pos = m.start()

    def hadamard(self, src: Src, bound: frozenset[str]) -> Src:
        if not re.search(r"\\o(?:dot|times)(?![A-Za-z])", src.text):
            return src
        depth = top_level(src.text)
        # a bracketed group holding an elementwise product is read on its own first
        for m in re.finditer(r"\\o(?:dot|times)(?![A-Za-z])", src.text):
            if depth[m.start()] > 0:
                return self.hadamard(self.nested_group(src, m.start(), bound), bound)
        terms: list[tuple[int, int]] = []
        last = 0
        for i, ch in enumerate(src.text):
            if depth[i] == 0 and ch in "+-" and src.text[:i].strip() and not _AFTER_OPERATOR.search(src.text[:i]):
                terms.append((last, i))
                last = i + 1
        terms.append((last, len(src.text)))
        for start, end in reversed(terms):
            term = src.slice(start, end)
            ops = split_top(term, "\\odot") if "\\odot" in term.text else [term]
            ops = [q for p in ops for q in split_top(p, "\\otimes")]
            if len(ops) < 2:
                continue
            values = [self.read(p, bound) for p in ops]
            if "\\otimes" in term.text and any(_square_block(v) for v in values):
                # between matrices \otimes is the Kronecker product (a 2x2 by a 2x2 is 4x4), never entry by entry
                raise term.error(r"\otimes beside a matrix is the Kronecker product, not read", 0)
            acc = values[0]
            for v in values[1:]:
                acc = elementwise(acc, v, term)
            src = src.splice(start, end, self.placeholder(acc))
        return src

    def complex_dots(self, src: Src, bound: frozenset[str]) -> Src:
        """``a \\cdot b`` of two complex values (:mod:`.complex_dots`): the product, left as written, or the dot
        product of the pairs, ``Re(a conj(b))``, as ``scope.dot_reading`` picks; :class:`AmbiguousReading` where
        it picks neither. The first such ``\\cdot`` is read first (the grammar's order: ``a \\cdot b \\cdot c``
        is ``(a \\cdot b) \\cdot c``), then the next."""
        done: set[tuple[str, str]] = set()  # operands found not both pairs: a product
        while self.scope.dot_reading != "product" and not self.in_part and DOT.search(src.text):
            for left, dot, after, right in dot_spans(src.text):
                pieces = (src.slice(left, dot).strip(), src.slice(after, right).strip())
                if (pieces[0].text, pieces[1].text) in done:
                    continue
                done.add((pieces[0].text, pieces[1].text))
                values = self.dot_operands(pieces, bound)
                if values is None:
                    continue
                if self.scope.dot_reading != "pairs":
                    raise AmbiguousReading(
                        f"{self.piece(src.slice(left, right))!r} reads as the product of two complex values or as "
                        "the dot product of the pairs they stand for: not read with certainty",
                        "dot_reading",
                        DOT_CHOICES,
                        src.col(dot),
                    )
                src = src.splice(left, right, self.placeholder(inner_product(*values)))
                break
            else:
                return src
        return src

    def dot_operands(self, pieces: tuple[Src, Src], bound: frozenset[str]) -> tuple[Any, Any] | None:
        """The two operands of a ``\\cdot``, read, where both may stand for pairs; else None (also where one
        cannot be read on its own: the ``\\cdot`` is then the product, as the side's reading decides)."""
        values = []
        for piece in pieces:
            if not re.search(r"[A-Za-z]", _NUMBER_COMMANDS.sub("", piece.text)):
                return None  # a number: the product
            try:
                value = self.read(piece, bound)
            except (ClaimParseError, ClaimLimitError, RecursionError):
                return None
            if not stands_for_pair(value):
                return None
            values.append(value)
        return values[0], values[1]

    def nested_group(self, src: Src, at: int, bound: frozenset[str]) -> Src:
        """The innermost grouping bracket around ``at``, read on its own and replaced by a placeholder."""
        depth = top_level(src.text)
        level = depth[at]
        start = max(i for i in range(at) if depth[i] == level - 1 and src.text[i] in "([{")
        end = skip_group(src.text, start)
        inner = src.slice(start + 1, end - 1)
        inner = inner.slice(0, len(re.sub(r"\\right\s*$", "", inner.text.rstrip())))
        lead = src.text[:start]
        lead_cut = len(lead) - 5 if lead.endswith("\\left") else len(lead)
        value = self.read(inner, bound)
        return src.splice(lead_cut, end, "(" + self.placeholder(value) + ")")

    # ---- the text SymPy's parser reads

    def star(self, m: re.Match[str]) -> str:
        """``b^*``: the conjugate of b, or -- for a name never conjugated otherwise -- maybe a name of its own."""
        name = re.sub(r"\s+", "", m.group(1))
        if self.own_star_name(m):
            return self.placeholder(apply_domains(Symbol(name.lstrip("\\") + "^{*}"), self.scope.domains))
        return r"\overline{" + name + "}"

    def starred_name(self, m: re.Match[str]) -> str:
        """A name read whole before the star (``\\mathrm{xhat}_{m}^*``, a decorated name of its own) starred: read as
        :meth:`star` reads ``b^*``, both ways where the name is never conjugated otherwise."""
        value = self.values.get(m.group(1))
        if not isinstance(value, Symbol) or domain_key(value.name) not in self.scope.star_names:
            return m.group(0)
        if not _DECORATED_SYMBOL.match(value.name):  # k_{c,i}^*, another name read whole: its conjugate, as before
            return m.group(0)
        written = re.match(r"(.+)(\^\*)$", value.name + "^*")
        if written is None or not self.own_star_name(written):
            return m.group(0)
        return self.placeholder(apply_domains(Symbol(value.name + "^{*}"), self.scope.domains))

    def starred_calls(self, src: Src, text: str) -> str:
        """``f^*(k, n)``: the conjugate of the value f(k, n), where f^* conjugates; a function of its own named f^*
        (the other reading of a name never conjugated otherwise) is not read. Only a call for certain: f is a
        function defined here, or the bracket holds several arguments (``k^*(m - n)`` stays k's conjugate times
        the bracket)."""
        pos = 0
        while m := _STAR.search(text, pos):
            at = m.end() + len(text[m.end() :]) - len(text[m.end() :].lstrip())
            end = skip_group(text, at) if text[at : at + 1] == "(" else -1
            called = (
                m.group(1).lstrip("\\") in self.scope.functions
                or len(split_top(Src.of(text[at + 1 : end - 1]), ",")) > 1
            )
            if end < 0 or not called:
                pos = m.end()
                continue
            if self.own_star_name(m):
                written = re.sub(r"\s+", "", m.group(0))
                raise src.error(f"{written}(...) read as a function of its own named so is not read", 0)
            call = r"\overline{" + m.group(1) + text[at:end] + "}"
            text = text[: m.start()] + call + text[end:]
            pos = m.start() + len(call)
        return text

    def own_star_name(self, m: re.Match[str]) -> bool:
        """Whether ``b^*`` is read as a name of its own (True) or as b's conjugate (False); raises
        :class:`AmbiguousReading` where the reading is not picked."""
        name, written = re.sub(r"\s+", "", m.group(1)), re.sub(r"\s+", "", m.group(0))
        if domain_key(name) in self.scope.star_names:
            if self.scope.star_reading == "name":
                return True
            if self.scope.star_reading != "conjugate":
                raise AmbiguousReading(
                    f"{written!r} reads as the conjugate of {name} (complex) or as a name of its own "
                    f"(a real {name}^*, such as an optimum): not read with certainty",
                    "star_reading",
                    {
                        "conjugate": f"{name}^* the conjugate of a complex {name}",
                        "name": f"{name}^* a real name of its own",
                    },
                    None,
                )
        return False

    def rewrite(self, src: Src) -> str:
        text = src.text
        text = _PART.sub(lambda m: r"\mathit{" + (m.group(1) or m.group(2)) + "}", text)
        text = _STARRED_PLACEHOLDER.sub(self.starred_name, text)  # \hat{x}^*: xhat's conjugate, or a name?
        text = re.sub(r"(\)|\})\s*\^\s*(?:\{\s*(?:\*|\\ast)\s*\}|\*|\\ast)", r"\1^{\\mathit{ZQMKC}}", text)
        text = _STAR.sub(self.star, self.starred_calls(src, text))
        text = _BAR_BARE.sub(lambda m: r"\overline{" + (m.group(1) or m.group(2)) + "}", text)
        text = re.sub(r"\\bar\s*\{", r"\\overline{", text)
        text = _TOP.sub(r"^{\\mathit{ZQMKT}}", text)
        text = _PRIME.sub(r"^{\\mathit{ZQMKP}}", text)
        text = _HERM.sub(r"^{\\mathit{ZQMKH}}", text)
        text = re.sub(r"\\left\s*[(\[]", "(", text)
        text = re.sub(r"\\right\s*[)\]]", ")", text)
        text = re.sub(r"\\(?:left|right)\s*\.", " ", text)
        text = re.sub(r"\\(?:left|right)\s*\|", "|", text)
        text = re.sub(r"(?<!\\sqrt)\[", "(", text).replace("]", ")")
        if "pi" not in self.scope.functions:  # 2\pi (b s)^x: the constant times the bracket, never a call
            text = _PI_BRACKET.sub(r"\1\\pi \\cdot (", text)
        return mark_raised_calls(text)


#: the Greek letters a name before a bracket may be (pi, a number, and Gamma, Pi, functions, are not)
_NAME_GREEK = "|".join(g for g in _GREEK if g not in ("pi", "varpi", "Pi", "Gamma", "omicron"))
#: a one-letter name, perhaps subscripted, right before a bracket (not a letter of a word or a command, nor
#: itself a subscript)
_NAME_BRACKET = re.compile(
    rf"((?:(?<![\\A-Za-z_^'])[A-Za-z]|(?<![\\_^])\\(?:{_NAME_GREEK})(?![A-Za-z]))"
    r"(?:\s*_\s*(?:\{[^{}]*\}|[A-Za-z0-9]))?)(?:\s|\\[,;:! ])*(?=\()"
)


#: ``\mathbb{E}_{q,k}\big[``: an expectation over the names of its subscript, its bracket opened
_EXPECTATION = re.compile(
    r"\\mathbb\s*\{\s*E\s*\}\s*_\s*(?P<sub>\{[^{}]*\}|\\[A-Za-z]+|[A-Za-z])\s*(?:\\(?:left|[Bb]igg?l?)\s*)?\["
)
#: the commands a number is written with (``\frac{1}{2}``, ``\sqrt{2}``, ``\pi``): an operand of a ``\cdot`` with no
#: other letter is a number, and the ``\cdot`` its product (.complex_dots)
_NUMBER_COMMANDS = re.compile(r"\\(?:frac|dfrac|tfrac|sqrt|pi|left|right)(?![A-Za-z])")
#: ``2\pi (b s)^x``: after a number, pi is the circle constant, and the bracket a factor (a function or a
#: permutation pi, ``\pi(i)``, is never written after a coefficient)
_PI_BRACKET = re.compile(r"(?<=\d)(\s*(?:\\cdot\s*)?)\\pi\s*\((?!\s*\))")


def mark_raised_calls(text: str) -> str:
    """``x(G)^E`` written so, the exponent right on the bracket, as ``Z_{ZQBP}(x, G, E)`` (:data:`RAISED_CALL`).

    SymPy's LaTeX parser gives ``a(m-1)^b`` and ``(a(m-1))^b`` the same tree, the call raised; marked here
    the first is told apart: a times the bracket raised when a is a number, a function's value raised when
    a is one. A transpose or a prime after the bracket is not a power and is left alone.
    """
    out, pos = [], 0
    for m in _NAME_BRACKET.finditer(text):
        if m.start() < pos:
            continue
        close = skip_group(text, m.end())
        power = re.match(r"\s*\^\s*", text[close:]) if close > 0 else None
        if power is None:
            continue
        at = close + power.end()
        end = skip_group(text, at) if text[at : at + 1] == "{" else at + len(_exponent_token(text[at:]))
        exponent, bracket = text[at:end], text[m.end() + 1 : close - 1]
        argument = exponent.startswith("\\") and text[end:].lstrip().startswith("{")  # ^\frac{1}{2}: left alone
        if end <= at or argument or "ZQMK" in exponent or len(split_top(Src.of(bracket), ",")) != 1:
            continue
        exponent = exponent[1:-1] if exponent.startswith("{") else exponent
        bracket, exponent = mark_raised_calls(bracket), mark_raised_calls(exponent)
        out += [text[pos : m.start()], f"{RAISED_CALL_LATEX}({m.group(1)}, {bracket}, {exponent})"]
        pos = end
    return "".join(out) + text[pos:] if out else text


def _exponent_token(text: str) -> str:
    """The exponent written without braces: a command (``\\alpha``) or one character."""
    m = re.match(r"\\[A-Za-z]+|[A-Za-z0-9]", text)
    return m.group(0) if m else ""


def _piece_name(value: Any) -> str:
    """How a piece read already stands inside a name: a symbol by its name, anything else as SymPy prints it."""
    return value.name if isinstance(value, Symbol) else sympy.sstr(value)


def _components(d: Definition, base: str) -> set[str]:
    """The subscripts of the pattern's own base inside its body (``q_1``, ``q_2`` in ``q_m = (q_1 + i q_2) ...``)."""
    name = base.lstrip("\\")
    found = set()
    values = list(d.body) if isinstance(d.body, MatrixBase) else [d.body]
    for v in values:
        for s in getattr(v, "free_symbols", ()):
            m = re.fullmatch(re.escape(name) + r"_\{?(.+?)\}?", getattr(s, "name", ""))
            if m:
                found.add(re.sub(r"\s", "", m.group(1)))
    return found


def comma_pattern_key(name: str) -> str:
    """``R_{\\theta,m}`` -> ``R_{\\theta,*}``: the key a pattern over the last subscript is kept under."""
    head, _, last = name.rpartition(",")
    return f"{head},*}}" if head and last.endswith("}") else name


def _inside_command(text: str, at: int) -> bool:
    """Whether ``text[at]`` is a letter of a command name (``\\cos``), not a letter of its own."""
    if text[at : at + 1] == "\\":
        return False
    i = at
    while i > 0 and text[i - 1].isalpha():
        i -= 1
    return text[i - 1 : i] == "\\"


def _set_name(m: re.Match[str]) -> str:
    """``f_{\\{q,k\\}}``, spaces dropped, as the name of a set-subscripted symbol or function."""
    return m.group(1).lstrip("\\") + "_{\\{" + re.sub(r"\s+", "", m.group(2)) + "\\}}"


def _plain_call(text: str, pos: int, scope: Scope) -> tuple[int, str, int] | None:
    """A defined multi-letter function written plainly (``rotate_half(x)``): (start, name, index of its bracket)."""
    for m in re.finditer(r"(?<![\\A-Za-z{])([A-Za-z]+(?:\\?_[A-Za-z]+)*)(?=\s*(?:\\left)?\()", text[pos:]):
        name = m.group(1).replace("\\_", "_")
        if name in scope.functions and len(name) > 1:
            return pos + m.start(), name, pos + m.end()
    return None


def _angle_open(text: str) -> re.Match[str] | None:
    for m in re.finditer(r"<(?![=<])", text):
        if m.start() > 0 and text[m.start() - 1] in "\\<":
            continue
        if _angle_close(text, m.start()) >= 0:
            return m
        return m
    return None


def _angle_close(text: str, start: int) -> int:
    depth, nest = 0, 0
    for i in range(start + 1, len(text)):
        ch = text[i]
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "<" and depth == 0:
            nest += 1
        elif ch == ">" and depth == 0:
            if nest == 0:
                return i
            nest -= 1
    return -1


def _caret(message: str, side: str) -> int:
    for line in message.splitlines():
        if line.strip().endswith("^") and set(line.strip()) <= {"~", "^"}:
            return min(len(line.rstrip()) - 1, len(side))
    return 0


# --------------------------------------------------------------------------- API


def _probe(scope: Scope, tex: str) -> Any:
    """:func:`read_quiet` with the scope first (for :func:`functools.partial`)."""
    return read_quiet(tex, scope)


def read_quiet(tex: str, scope: Scope) -> Any:
    """``tex`` read as :func:`read_latex_side` reads it, or None where it cannot be read (a reading, a limit)."""
    try:
        return read_latex_side(tex, 0, scope)
    except (ClaimParseError, ClaimLimitError, RecursionError):
        return None


def read_latex_side(
    side: str,
    offset: int = 0,
    scope: Scope | None = None,
    *,
    narrow: bool = True,
    bound: frozenset[str] = frozenset(),
) -> Any:
    """One side of a LaTeX claim as a SymPy expression or matrix; ``offset`` is its column in the claim.

    ``narrow`` picks the reading of a trig function written without parentheses (see the
    module docstring): True reads ``\\cos m\\theta\\, q_1`` as ``cos(m θ) q_1``, False as SymPy's
    parser does. ``bound``: names kept as plain symbols, never replaced by a definition or
    read as a constant (a definition's parameters; ``i`` as an index). Raises
    :class:`~ropecheck.errors.ClaimParseError` with the column for what cannot be read.

    Example:
        >>> read_latex_side(r"\\langle (a, b), (c, d) \\rangle")
        a*c + b*d
    """
    scope = scope or Scope()
    src = Src.of(side, offset)
    if not side.strip():
        raise ClaimParseError("empty side of the claim", offset)
    bar = _EVALUATION_BAR.search(side)
    if bar is not None:
        return _evaluated(side, bar, offset, scope, (narrow, bound))
    if CASES_OPEN.match(side):  # a side given by cases: each piece and condition read on its own
        return read_cases(src, lambda t, at, b: read_latex_side(t, at, scope, narrow=narrow, bound=b), bound)
    if leibniz_at(side) is not None:  # a derivative, never a quotient
        return derivative_side(side, offset, lambda t, at: read_latex_side(t, at, scope, narrow=narrow, bound=bound))
    _check_products(src)
    # a decorated name the document defined is read by its definition; any other is a name of its own
    src = decorated_as_names(apply_aliases(_normalize(spaced_labels(src)), scope.aliases))
    if (unsure := unsure_list_at(src.text)) is not None:  # [0, 1] as an operand: a column, an interval?
        raise src.error(unsure[1], unsure[0])
    if scope.commutators:  # [A, B] = AB - BA in the document: a bracket of two matrices is their commutator
        src = commutators_written_out(src, scope.array_names)
    src = open_sum_ranges(src)  # \sum_j: a range not written
    src = upper_only_ranges(src)  # \sum_j^{d/2}: no lower end written
    _check(src, scope)
    _check_upright(src, scope)
    _check_slash(src)
    raised = power_beside_labels(src.text)
    if raised is not None:  # k_n^2 beside k_n^{(1)}: the label k_n^{(2)} with its parentheses dropped, or a power?
        raise ClaimLimitError(
            "a name raised to a number beside the same name with labels (k_n^2 beside k_n^{(1)}): a label or a "
            "power? not read with certainty",
            "reading",
            src.col(raised),
        )
    src = _complex_sums(src, scope, bound)
    src = _glued(_plain_functions(src), scope)  # before d x is read: `dim` is a word, not d times `im`
    src = _differentials(src)
    src, bound = _imaginary(src, scope, bound)
    if narrow:
        src, _ = _trig_arguments(src, spacing_columns(side, offset))
    value = name_open_ranges(_Reader(scope, side, offset).read(src, bound))
    return check_expression(value, side, offset)


#: ``f \\Big|_{d = D/2 - 1}`` closing a side: f evaluated at d = D/2 - 1
_EVALUATION_BAR = re.compile(
    r"(?<!\\)(?:\\(?:[Bb]igg?|right)[lr]?\.?\s*)?\|\s*_\s*\{\s*(?P<var>[A-Za-z]|\\[A-Za-z]+)\s*=(?P<value>(?:[^{}]|\{(?:[^{}]|\{[^{}]*\})*\})+)\}\s*$"
)


def _evaluated(side: str, bar: re.Match[str], offset: int, scope: Scope, how: tuple[bool, frozenset[str]]) -> Any:
    """``f |_{d = v}``: f read with d a plain name, then d set to v. Read so only where the bar takes the whole
    side: no other bar stands before it (``|x|_{x=1}`` is refused, not guessed)."""
    narrow, bound = how
    body = side[: bar.start()]
    if "|" in re.sub(r"\\\|", "", body) or not body.strip():
        raise ClaimParseError("a bar |_{...} after an expression with bars in it is not read", offset + bar.start())
    name = bar.group("var").lstrip("\\")
    at = offset + bar.start("value")
    value = read_latex_side(bar.group("value"), at, scope, narrow=narrow, bound=bound)
    inner = read_latex_side(body, offset, scope, narrow=narrow, bound=bound | {name})
    if isinstance(value, MatrixBase):
        raise ClaimParseError("a matrix after an evaluation bar |_{...} is not read", at)
    symbols = [x for x in free_symbols(inner) if x.name == name]
    return inner.xreplace({x: value for x in symbols}) if symbols else inner


def free_symbols(value: Any) -> set[Any]:
    """The free symbols of an expression or a matrix."""
    if isinstance(value, MatrixBase):
        return set().union(*(e.free_symbols for e in value)) if value else set()
    return set(value.free_symbols) if isinstance(value, sympy.Basic) else set()


def normalize_latex(text: str) -> str:
    """The text as the reader sees it first: Unicode as commands, ``\\mathbf{q}`` as ``q``, ``cos(x)`` as ``\\cos(x)``.

    Example:
        >>> print(normalize_latex(r"\\mathbf{x}_m = cos(mθ)"))
        x _m = \\cos(m\\theta )
    """
    return _plain_functions(_normalize(Src.of(text))).text


def trig_ambiguities(side: str) -> list[int]:
    r"""Columns of ``side`` where a trig function's argument has no parentheses, so two readings exist.

    Example:
        >>> trig_ambiguities(r"q_1 \cos m\theta")
        [4]
    """
    src = _plain_functions(_normalize(Src.of(side)))
    try:
        return _trig_arguments(src, spacing_columns(side))[1]
    except ClaimParseError as exc:  # an argument that runs into a bracket: ambiguous, and refused when read
        return [exc.position or 0]


_NAME = r"\\?[A-Za-z]+(?:\s*_\{[^{}]*\}|\s*_[A-Za-z0-9])?"
_CONJUGATED = re.compile(
    r"\\(?:bar|overline)\s*(?:\{\s*(" + _NAME + r")\s*\}|(" + _NAME + r"))"
    r"|(" + _NAME + r")\s*\^\s*(?:\{\s*(?:\*|\\ast)\s*\}|\*|\\ast)"
    # (z_1)^*: one name in brackets, starred -- its conjugate (a bracket is never a name of its own)
    r"|\(\s*(" + _NAME + r")\s*\)\s*\^\s*(?:\{\s*(?:\*|\\ast)\s*\}|\*|\\ast)"
)


def _unbolded(text: str) -> str:
    r"""``text`` with each bold or arrowed name as the name itself (``\boldsymbol{k}_n^*`` -> `` k_n^*``), so that
    a mark after its subscript is read as the whole name's, never as the subscript's."""
    text = _BOLD_BARE.sub(lambda m: " " + (m.group(1) or m.group(2)), _BOLD.sub(lambda m: " " + m.group(1), text))
    return decorated_as_words(text)  # \hat{x}^*_m: the name xhat_m conjugated


def conjugated_names(text: str) -> set[str]:
    r"""The names written conjugated (``\bar{k}``, ``\overline{k}``, ``k^*``), as domain keys.

    Such a name is complex in the whole claim: conjugating a real number would be pointless.

    Example:
        >>> sorted(conjugated_names(r"\Re[q \bar{k}] + p^*"))
        ['k', 'p']
    """
    text = _unbolded(text)
    names = {next(g for g in m.groups() if g) for m in _CONJUGATED.finditer(text)}
    return {domain_key(n) for n in names if n.lstrip("\\") not in ("mathit", "mathrm", "mathsf")}


#: a bracket conjugated by a bar: ``\\overline{...}``, ``\\bar{...}`` (one starred is found by :data:`_STAR_AFTER`)
_GROUP_BAR = re.compile(r"\\(?:bar|overline)\s*\{")
#: what inside a conjugated bracket is not one of its factors or terms: an exponent, a function's argument
_NOT_A_FACTOR = re.compile(r"(?:\^|\\(?:exp|cos|sin|tan|log|ln|sqrt|frac))\s*(?=[{(])")
#: exponents, written in braces (``e^{i\\phi}``: an i there is no part of the bracket)
_NOT_A_FACTOR_ALL = re.compile(r"\^\s*\{[^{}]*\}|\^\s*[A-Za-z0-9]")


def conjugated_group_names(text: str) -> set[str]:
    r"""The names that stand as factors or terms of a conjugated bracket (``(W_k x_n)^*``, ``\overline{a + b}``), as
    domain keys -- not those in its exponents or function arguments (``(q e^{i m \theta})^*``: q only).

    One does not conjugate a real number, so such a bracket is complex; which of its names are is not said. A step
    with them is read with them complex and refuted only where it is refuted with them real too.

    Example:
        >>> sorted(conjugated_group_names(r"\Re[(W_q x_m)(W_k x_n)^* e^{i\theta}] + \overline{a + b e^{i m t}}"))
        ['W_k', 'a', 'b', 'x_n']
        >>> conjugated_group_names(r"(z)^* + \overline{e^{i m \theta}}")
        set()
    """
    text = _unbolded(text)
    groups: list[str] = []
    for at, ch in enumerate(text):  # (...)^*, [...]^*, \left( ... \right)^*: a bracket and a star after it
        if ch in "([" and (end := skip_group(text, at)) > 0 and _STAR_AFTER.match(text, end):
            groups.append(text[at + 1 : end - 1])
    for m in _GROUP_BAR.finditer(text):
        end = skip_group(text, m.end() - 1)
        groups.append(text[m.end() : end - 1] if end > 0 else "")
    return set().union(*map(_factor_names, groups))


#: a function written without brackets and what it applies to (``\\cos m\\theta``), up to the next term
_BARE_CALL = re.compile(r"\\(?:exp|cos|sin|tan|log|ln)(?![A-Za-z])\s*(?![{(])[^+\-)\]]*")
#: the unit written as a part (``u + v i``, ``q_0 + i q_1``): the names beside it are the real and imaginary parts
_UNIT_PART = re.compile(r"(?<![\\A-Za-z_^{])[A-Za-z]?i(?![A-Za-z_])")  # ``qi``: a letter glued to the unit


def _factor_names(group: str) -> set[str]:
    """The names of ``group`` outside its exponents and function arguments; none where it is one name (a name
    conjugated, read by :func:`conjugated_names`) or writes the unit as a part (``\\overline{u - v i}``: u and v
    are its real and imaginary parts, real by that form)."""
    if _UNIT_PART.search(_NOT_A_FACTOR_ALL.sub(" ", group)) or re.fullmatch(r"\s*" + _NAME + r"\s*", group):
        return set()
    group = _BARE_CALL.sub(" ", group)
    plain, at = "", 0
    for m in _NOT_A_FACTOR.finditer(group):
        if m.start() < at:
            continue
        end = skip_group(group, m.end())
        plain += group[at : m.start()] + " "
        at = end if end > 0 else len(group)
    plain += group[at:]
    written = (m.group(0) for m in re.finditer(_NAME, plain))
    names = {domain_key(n) for n in written if not n.startswith("\\") or n.lstrip("\\") in GREEK}
    return names - {"i", "e", "pi", "left", "right"}


def star_only_names(text: str) -> set[str]:
    r"""The names written ``b^*`` and never conjugated otherwise (``\bar b``, ``\overline{b}``, ``b^\dagger``,
    ``b^H``), as domain keys: ``b^*`` may be b's conjugate or a name of its own ("the optimal b").

    Example:
        >>> sorted(star_only_names(r"b^* = 2 b + \bar{q} q^*"))
        ['b']
    """
    text = _unbolded(text)
    starred = {domain_key(m.group(1)) for m in _STAR.finditer(text)}
    other = {domain_key(next(g for g in m.groups() if g)) for m in _CONJUGATED.finditer(text) if not m.group(3)}
    other |= {domain_key(m.group(1)) for m in re.finditer(r"(" + _NAME + r")\s*" + _HERM.pattern, text)}
    return {n for n in starred - other if n not in ("mathit", "mathrm", "mathsf")}


def conjugated_forms(text: str) -> dict[str, str]:
    r"""Each name written conjugated, as a domain key, with the first way it was written.

    Example:
        >>> conjugated_forms(r"\Re[q \bar{k}] + p^* + \overline{k}")
        {'k': '\\bar{k}', 'p': 'p^*'}
    """
    out: dict[str, str] = {}
    for m in _CONJUGATED.finditer(_unbolded(text)):
        name = next(g for g in m.groups() if g)
        if name.lstrip("\\") not in ("mathit", "mathrm", "mathsf"):
            form = re.sub(r"\s+", " ", m.group(0)).strip()
            form = _DECORATED_COMMAND.sub("", form)  # \xhat: xhat
            out.setdefault(domain_key(name), form)
    return out


def reading_notes(text: str) -> list[str]:
    r"""Each default reading applied to ``text``, in words (a citation dropped, a transpose, a lone ``d`` or ``e``).

    Example:
        >>> reading_notes(r"q^\mathsf{T} k")
        ['`^\\mathsf{T}` read as transpose']
    """
    notes: list[str] = []
    for m in citations(text):
        notes.append(f"`{m.group(0).strip()}` read as a citation (not math)")
    if _MATMUL.search(text):
        notes.append("`@` read as the matrix product")
    for m in _TRANSPOSE_SPELLING.finditer(text):
        notes.append(f"`{m.group(0).strip()}` read as transpose")
    for m in PRIMED_CALL.finditer(text):
        written = re.sub(r"\s+", "", m.group(0))
        notes.append(
            f"`{written}(...)` read as a derivative of a function defined of one argument, else as a function of "
            "its own"
        )
    if _PRIME.search(PRIMED_CALL.sub("", text)):
        notes.append("`'` read as transpose (of a matrix or vector)")
    if not re.search(r"\\int(?![A-Za-z])", text) and _DIFFERENTIAL.search(text):
        notes.append("`d` read as a symbol, not a differential (only \\mathrm{d} in an integral is one)")
    if re.search(r"(?<![\\A-Za-z0-9_^{])e(?![A-Za-z])(?!\s*\^)", text):
        notes.append("a lone `e` read as a symbol (Euler's number is e^{...} or \\mathrm{e})")
    return list(dict.fromkeys(notes))
