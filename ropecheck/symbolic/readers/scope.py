"""What a reading knows: the symbols' domains, and the definitions made so far in a document.

A free name in a claim is a real number unless its domain is *stated*: by a flag
(``--complex q,k --integer m,n --positive theta``), by a leading clause in the claim
(``q, k \\in \\mathbb{C}:`` in LaTeX, ``q, k in C:`` in plain text; several groups joined by
commas or semicolons, ``q \\in \\mathbb{C},\\ m, n \\in \\mathbb{Z}:``), or, in an audited
document, by a declaration in its math (``Let $q, k \\in \\mathbb{C}$``) or a definition
with a complex right side (``q = q^{(1)} + i q^{(2)}``). Every verdict lists the domains it
was decided under (:func:`describe_domains`).

=====================  ======================================  =========================
domain                 written                                 SymPy symbol
=====================  ======================================  =========================
``complex``            ``\\mathbb{C}``, ``C``, ``ℂ``, ``complex``  ``complex=True``
``real``               ``\\mathbb{R}``, ``R``, ``ℝ``, ``real``     ``real=True`` (the default)
``integer``            ``\\mathbb{Z}``, ``Z``, ``ℤ``, ``integer``  ``integer=True``
``natural``            ``\\mathbb{N}``, ``N``, ``ℕ``, ``natural``  ``integer=True, nonnegative=True``
``positive``           ``\\mathbb{R}_{>0}``, ``\\mathbb{R}^+``,      ``positive=True``
                       ``positive``
``positive integer``   ``--integer`` and ``--positive`` on a name  ``integer=True, positive=True``
=====================  ======================================  =========================

Names are matched after dropping backslashes, braces and spaces, so ``\\theta``, ``theta``
and ``x_{m}``/``x_m`` name the same symbol in a flag, a clause and the claim.

Design constraints: pure data and functions; the definitions (:class:`Scope`) hold already
converted SymPy values, so a reader substitutes them while it builds an expression -- in
written order, which matters for matrices.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import sympy
from sympy import MatrixBase, Symbol

from ...errors import ClaimParseError, UsageError

__all__ = [
    "DOMAINS",
    "Definition",
    "Scope",
    "apply_domains",
    "describe_domains",
    "domain_assumptions",
    "domain_key",
    "domain_of",
    "domain_symbol",
    "indexed_by",
    "merge_domains",
    "parse_domain_flags",
    "split_declaration",
]

#: The domains a name can be given, with the SymPy assumptions of its symbol.
DOMAINS: dict[str, dict[str, bool]] = {
    "complex": {"complex": True},
    "real": {"real": True},
    "integer": {"integer": True},
    "natural": {"integer": True, "nonnegative": True},
    "positive": {"positive": True},
    "positive integer": {"integer": True, "positive": True},
}


def domain_key(name: str) -> str:
    """The name a domain is looked up by: no backslashes, braces or spaces (``x_{m}`` -> ``x_m``)."""
    return re.sub(r"[\\{}\s]", "", str(name))


def domain_assumptions(domain: str) -> dict[str, bool]:
    """The SymPy assumptions of a domain's symbols."""
    return dict(DOMAINS[domain])


def domain_symbol(name: str, domains: Mapping[str, str] | None = None) -> Symbol:
    """The symbol ``name`` with the assumptions of its stated domain (real when none is stated)."""
    domain = (domains or {}).get(domain_key(name), "real")
    return Symbol(name, **DOMAINS[domain])


def _unassumed(s: Any) -> bool:
    return isinstance(s, Symbol) and s.is_real is None and s.is_complex is None and s.is_integer is None


def apply_domains(expr: Any, domains: Mapping[str, str] | None = None) -> Any:
    """Every free symbol without assumptions becomes the symbol of its stated domain (real by default)."""
    if isinstance(expr, MatrixBase):
        return sympy.ImmutableMatrix(expr.applyfunc(lambda e: apply_domains(e, domains)))
    if not isinstance(expr, sympy.Basic):
        return sympy.sympify(expr)
    mapping = {s: domain_symbol(s.name, domains) for s in expr.free_symbols if _unassumed(s)}
    return expr.xreplace(mapping) if mapping else expr


def domain_of(sym: Any) -> str:
    """The domain a symbol (or a sequence's base) was given, read back from its assumptions."""
    if sym.is_integer:
        if sym.is_positive:
            return "positive integer"
        return "natural" if sym.is_nonnegative else "integer"
    if sym.is_positive:
        return "positive"
    if sym.is_real:
        return "real"
    return "complex"


def describe_domains(
    exprs: Iterable[Any], declared: Mapping[str, str] | None = None, inferred: Mapping[str, str] | None = None
) -> list[dict[str, str]]:
    """Each free symbol and sequence of ``exprs`` with its domain and where the domain came from.

    ``source`` is ``declared`` (a flag, a clause, a declaration in the document), ``inferred
    from \\bar{q}`` (``inferred`` maps a name to how the document wrote it conjugated),
    ``default`` (real, as nothing was stated) or ``summation`` (a summation variable or limit:
    an integer). A declared name the expressions no longer hold (``cos(2 pi m)`` became 1) is
    listed too.

    Example:
        >>> import sympy
        >>> q = sympy.Symbol("q", complex=True)
        >>> [d["domain"] for d in describe_domains([q + sympy.Symbol("m", real=True)], {"q": "complex"})]
        ['real', 'complex']
    """
    declared = declared or {}
    inferred = {k: v for k, v in (inferred or {}).items() if k not in declared}
    found: dict[str, Any] = {}
    bound: set[str] = set()
    for e in exprs:
        items = list(e) if isinstance(e, MatrixBase) else [e]
        for item in items:
            if not isinstance(item, sympy.Basic):
                continue
            for s in item.atoms(sympy.Sum, sympy.Product):
                for lim in s.limits:
                    bound |= {a.name for x in lim for a in x.free_symbols if isinstance(a, Symbol)}
                    bound.add(str(lim[0]))
            labels = {b.label for b in item.atoms(sympy.IndexedBase)}
            for b in item.atoms(sympy.IndexedBase):
                found.setdefault(str(b.label), b)
            # in a fixed order: one name may stand for two symbols (a block index, natural, and the same letter
            # as a summation index, integer), and a set's order would pick one by the hash seed
            for s in sorted(item.atoms(Symbol), key=sympy.srepr):
                if s not in labels and not isinstance(s, sympy.Dummy):
                    found.setdefault(s.name, s)
    out = []
    for name in sorted(found):
        sym = found[name]
        base = sym.label if isinstance(sym, sympy.IndexedBase) else sym
        domain = domain_of(base)
        if domain_key(name) in declared:
            source = "declared"
        elif domain_key(name) in inferred and domain == "complex":
            source = f"inferred from {inferred[domain_key(name)]}"
        elif name in bound and domain in ("integer", "natural", "positive integer"):
            source = "summation"
        else:
            source = "default"
        out.append({"symbol": name, "domain": domain, "source": source})
    listed = {domain_key(d["symbol"]) for d in out}
    for key in sorted(set(declared) - listed):  # declared, then simplified away (cos(2 pi m) with m integer)
        out.append({"symbol": key, "domain": declared[key], "source": "declared"})
    return out


# --------------------------------------------------------------------------- stating domains

_SETS: dict[str, str] = {}
for _names, _domain in (
    (("C", "ℂ", "complex"), "complex"),
    (("R", "ℝ", "real"), "real"),
    (("Z", "ℤ", "integer", "int"), "integer"),
    (("N", "ℕ", "natural"), "natural"),
    (("positive",), "positive"),
):
    for _n in _names:
        _SETS[_n] = _domain

#: a declared name: ``q``, ``\\theta``, ``x_m``, ``k_{n}``, also bold (``\\boldsymbol{q}_m``, ``\\mathbf{k}``)
_NAME = (
    r"(?:\\(?:mathbf|boldsymbol|bm|vec)\s*\{\s*\\?[A-Za-z]+\s*\}|\\?[A-Za-z]+)"
    r"(?:\s*_\s*(?:\{[^{}\s]+\}|[A-Za-z0-9]))?"
)
#: the wrapper of a bold or arrowed name, dropped before the name is looked up
_NAME_WRAPPER = re.compile(r"\\(?:mathbf|boldsymbol|bm|vec)\s*\{\s*(\\?[A-Za-z]+)\s*\}")
_SET = (
    r"\\mathbb\s*\{\s*[CRZN]\s*\}(?:\s*(?:_\s*\{\s*>\s*0\s*\}|\^\s*\{?\s*\+\s*\}?))?"
    r"|[ℂℝℤℕ]|complex|real|integer|natural|positive|[CRZN](?![A-Za-z])"
)
_GROUP = rf"(?P<names>{_NAME}(?:\s*,\s*{_NAME})*)\s*(?:\\in(?![A-Za-z])|∈|\bin\b)\s*(?P<set>{_SET})"
_ANY_GROUP = re.sub(r"\?P<\w+>", "", _GROUP)
_JOIN = r"(?:\s*(?:[,;]|\\[,; ]|\\q?quad)\s*)+"
_CLAUSE = re.compile(rf"^\s*(?:\\forall\s*)?(?P<groups>{_ANY_GROUP}(?:{_JOIN}{_ANY_GROUP})*)\s*(?::|\\colon)")
_ONE_GROUP = re.compile(_GROUP)
_DECLARATION = re.compile(rf"^\s*(?:\\forall\s*)?{_ANY_GROUP}(?:{_JOIN}{_ANY_GROUP})*\s*[.,;]?\s*$")


def _set_domain(text: str) -> str:
    t = re.sub(r"\s+", "", text)
    m = re.fullmatch(r"\\mathbb\{([CRZN])\}(.*)", t)
    if m:
        letter, rest = m.groups()
        if rest:
            if letter != "R":
                raise ClaimParseError(f"{text!r}: only the reals take a sign restriction (\\mathbb{{R}}_{{>0}})", 0)
            return "positive"
        return _SETS[letter]
    return _SETS[t]


def _groups(text: str) -> list[tuple[list[str], str, int]]:
    out = []
    for m in _ONE_GROUP.finditer(text):
        names = [_NAME_WRAPPER.sub(r"\1", n).strip() for n in m.group("names").split(",")]
        out.append((names, _set_domain(m.group("set")), m.start()))
    return out


def split_declaration(text: str) -> tuple[dict[str, str], str]:
    """A leading domain clause (``q, k \\in \\mathbb{C}:``) read off, and the text with it blanked.

    The clause is replaced by spaces, so columns in the rest of the claim stay where they were.

    Example:
        >>> split_declaration(r"z \\in \\mathbb{C}: \\bar{z} = z")
        ({'z': 'complex'}, '                  \\\\bar{z} = z')
    """
    m = _CLAUSE.match(text)
    if not m:
        return {}, text
    declared: dict[str, str] = {}
    for names, domain, _ in _groups(m.group("groups")):
        for name in names:
            merge_domains(declared, {domain_key(name): domain}, where=f"{name!r} in the claim's domain clause")
    return declared, " " * m.end() + text[m.end() :]


def parse_declaration(text: str) -> dict[str, str] | None:
    """The domains a piece of math declares when it is *only* a declaration (``q, k \\in \\mathbb{C}``), else None."""
    if not _DECLARATION.match(text):
        return None
    declared: dict[str, str] = {}
    for names, domain, _ in _groups(text):
        for name in names:
            merge_domains(declared, {domain_key(name): domain}, where=repr(name))
    return declared


def merge_domains(into: dict[str, str], new: Mapping[str, str], *, where: str = "") -> dict[str, str]:
    """Add ``new`` to ``into``: the same name twice must agree, except integer + positive = positive integer."""
    for key, domain in new.items():
        old = into.get(key)
        if old is None or old == domain:
            into[key] = domain
        elif {old, domain} <= {"integer", "positive", "positive integer", "natural"} and "integer" in (old + domain):
            into[key] = "positive integer" if "positive" in (old + domain) else "natural"
        else:
            raise UsageError(f"{key} is given two domains, {old} and {domain}{' (' + where + ')' if where else ''}")
    return into


def parse_domain_flags(**flags: str | None) -> dict[str, str]:
    """``complex="q,k", integer="m,n", positive="theta"`` (the CLI's ``--complex`` ...) as a domain mapping.

    Example:
        >>> parse_domain_flags(complex="q, k", integer="m", positive="m")
        {'q': 'complex', 'k': 'complex', 'm': 'positive integer'}
    """
    out: dict[str, str] = {}
    for domain, names in flags.items():
        if names is None:
            continue
        domain = domain.replace("_", " ")
        if domain not in DOMAINS:
            raise UsageError(f"unknown domain {domain!r}; known: {', '.join(DOMAINS)}")
        items = [n.strip() for n in names.split(",")]
        if not all(items) or not all(re.fullmatch(_NAME, n) or re.fullmatch(r"[A-Za-z]\w*", n) for n in items):
            raise UsageError(f"--{domain.replace(' ', '-')} takes comma-separated names, e.g. q,k; got {names!r}")
        for n in items:
            merge_domains(out, {domain_key(n): domain}, where=f"--{domain}")
    return out


# --------------------------------------------------------------------------- definitions

#: how the reader spells the norm of a name, a name of its own: ``‖x‖`` (``readers/latex_syntax.py``, ``NORM_OPEN``)
_NORM_MARK = "\u2016"


@dataclass(frozen=True)
class Definition:
    """A name a document defined, and what it stands for.

    ``kind`` is ``symbol`` (``q = q^{(1)} + i q^{(2)}``: the name stands for ``body``),
    ``pattern`` (``\\theta_i = 10000^{-2(i-1)/d}``: ``base_X`` stands for ``body`` with the
    parameter replaced by X) or ``function`` (``f_q(x_m, m) = ...``: a call stands for
    ``body`` with the parameters replaced by the arguments). ``source`` is the LaTeX as
    written, ``line`` where it was written. ``stated_value``: a number the text gives a name in
    passing (``for $z_1 = 1$``): an example or a boundary condition, so it holds inside sums over
    the sequence but is never substituted for the name itself.
    """

    kind: str
    name: str
    body: Any
    params: tuple[Any, ...] = ()
    source: str = ""
    line: int = 0
    stated_value: bool = False
    body_source: str = ""

    def apply(self, args: list[Any]) -> Any:
        """The body at ``args``. A vector argument also stands for its components: a body written with
        ``x_1 ... x_4`` (or ``x_0 ... x_3``) for a parameter ``x`` takes the argument's entries there."""
        if len(args) != len(self.params):
            raise ClaimParseError(
                f"{self.name} was defined with {len(self.params)} argument(s) (line {self.line}), given {len(args)}"
            )
        mapping = dict(zip(self.params, args))
        self._check_summed(args)
        for p, arg in zip(self.params, args):
            if isinstance(arg, MatrixBase) and min(arg.shape) == 1 and isinstance(p, Symbol):
                mapping.update(self._components(p, arg))
        mapping.update(self._indexed_by_params(mapping))
        mapping.update(self._norms_of_params(mapping))
        if isinstance(self.body, MatrixBase):
            return sympy.ImmutableMatrix(self.body.applyfunc(lambda e: _substitute(e, mapping)))
        return _substitute(self.body, mapping)

    def _norms_of_params(self, mapping: dict[Any, Any]) -> dict[Any, Any]:
        """``L(x) = \\|x\\|`` at u: the norm of a parameter, a name of its own (``‖x‖``), is the norm of the argument
        (``‖u‖``) where the argument is a name; of another argument it is not read (the norm of an expression)."""
        body = self.body if isinstance(self.body, sympy.Basic) else sympy.sympify(0)
        norms = {x.name: x for x in body.atoms(Symbol) if x.name.startswith(_NORM_MARK) and x.name.endswith(_NORM_MARK)}
        out: dict[Any, Any] = {}
        for p, arg in mapping.items():
            written = norms.get(f"{_NORM_MARK}{getattr(p, 'name', '')}{_NORM_MARK}")
            if written is None or arg == p:
                continue
            if not isinstance(arg, Symbol):
                raise ClaimParseError(f"the norm of a parameter of {self.name} (line {self.line}) at {arg} is not read")
            out[written] = Symbol(f"{_NORM_MARK}{arg.name}{_NORM_MARK}", **written.assumptions0)
        return out

    def _check_summed(self, args: list[Any]) -> None:
        """A parameter that is also a summation index in the body (``a_{i,j} = e^{s_{i,j}} / \\sum_j e^{s_{i,j}}``)
        is taken only by itself: at another argument, the sum's own index would be replaced too."""
        exprs = list(self.body) if isinstance(self.body, MatrixBase) else [self.body]
        summed = {str(lim[0]) for e in exprs if isinstance(e, sympy.Basic)
                  for s in e.atoms(sympy.Sum, sympy.Product) for lim in s.limits}  # fmt: skip
        for p, arg in zip(self.params, args):
            name = getattr(p, "name", None)
            if name in summed and getattr(arg, "name", None) != name:
                raise ClaimParseError(
                    f"{self.name} sums over its parameter {name} (line {self.line}): at {name} = {arg} that sum's "
                    "index would be replaced too, so the call is not read"
                )

    def _indexed_by_params(self, mapping: dict[Any, Any]) -> dict[Any, Any]:
        """Names of the body indexed by a parameter (``c_{m}`` in ``f(a, m) = a c_m``), renamed at the argument:
        ``f(a, 0)`` is ``a c_{0}``. An argument that is not a plain name or a natural number cannot be written
        into an index with certainty: the call is then not read (kept as ``c_{m}``, a false verdict could follow)."""
        exprs = list(self.body) if isinstance(self.body, MatrixBase) else [self.body]
        symbols = set().union(*(getattr(e, "free_symbols", set()) for e in exprs))
        out: dict[Any, Any] = {}
        for sym in sorted(symbols, key=str):
            found = re.fullmatch(r"(.+?)_\{(.+)\}", getattr(sym, "name", ""))
            if not isinstance(sym, Symbol) or found is None or sym in mapping:
                continue
            base, index = found.groups()
            renamed = index
            for p, arg in mapping.items():
                if not isinstance(p, Symbol) or not re.search(_token(p.name), renamed):
                    continue
                plain = (isinstance(arg, (int, sympy.Integer)) and int(arg) >= 0) or (
                    isinstance(arg, Symbol) and re.fullmatch(r"[A-Za-z]\w*", arg.name) is not None
                )
                written = None if plain else _index_at(renamed, p, arg)
                if not plain and written is None:
                    raise ClaimParseError(
                        f"{self.name} uses {sym.name}, a name indexed by its parameter {p.name}, and is called with "
                        f"{p.name} = {arg}: that index cannot be written with certainty (line {self.line})"
                    )
                renamed = re.sub(_token(p.name), str(arg), renamed) if written is None else written
            if renamed != index:
                out[sym] = Symbol(f"{base}_{{{renamed}}}", **sym.assumptions0)
        return out

    def _components(self, p: Symbol, arg: Any) -> dict[Any, Any]:
        parts = [e for e in (self.body if isinstance(self.body, MatrixBase) else [self.body])]
        found: dict[int, Any] = {}
        for e in parts:
            for s in getattr(e, "free_symbols", ()):
                m = re.fullmatch(re.escape(p.name) + r"_\{?(\d+)\}?", getattr(s, "name", ""))
                if m:
                    found[int(m.group(1))] = s
        if not found:
            return {}
        base = 0 if 0 in found else 1
        if max(found) - base >= len(arg):
            raise ClaimParseError(
                f"{self.name} uses {p.name}_{max(found)}, past the {len(arg)} entries of its argument "
                f"(line {self.line})"
            )
        return {s: arg[j - base] for j, s in found.items()}


def _token(name: str) -> str:
    return r"(?<![A-Za-z0-9\\])" + re.escape(name) + r"(?![A-Za-z0-9])"


def _index_at(index: str, param: Symbol, arg: Any) -> str | None:
    """An index written as SymPy writes it (``2*i + 1``), with the parameter replaced by an integer expression
    (``i + 1`` gives ``2*i + 3``); None where the index does not read as an expression of its names."""
    if not isinstance(arg, sympy.Expr) or isinstance(arg, MatrixBase):
        return None
    names = {x: Symbol(x) for x in re.findall(r"[A-Za-z]\w*", index)}
    try:
        value = sympy.sympify(index, locals=names)
    except (sympy.SympifyError, SyntaxError, TypeError, AttributeError):
        return None
    if not isinstance(value, sympy.Expr) or str(value).replace(" ", "") != index.replace(" ", ""):
        return None  # read another way than written: not rewritten with certainty
    return str(sympy.expand(value.xreplace({names.get(param.name, param): arg})))


def indexed_by(value: Any, param: Symbol) -> bool:
    """Whether a name in ``value`` is indexed by ``param`` (``a_{i}``, ``c_{2*i + 1}`` for i): the value depends
    on the parameter through that index, though the name is one symbol."""
    exprs = list(value) if isinstance(value, MatrixBase) else [value]
    for e in exprs:
        for sym in getattr(e, "free_symbols", set()):
            found = re.fullmatch(r"(.+?)_\{(.+)\}", getattr(sym, "name", ""))
            if found is not None and re.search(_token(param.name), found.group(2)):
                return True
    return False


def _fresh_bound(expr: Any, taken: set[str]) -> Any:
    """The expression with each sum's bound variable renamed where an argument uses its name (``S_j = \\sum_{i<j}
    c_i`` at j = i + 1 sums over another letter, not over the i of the argument), the names it indexes too."""
    sums = [s for s in expr.atoms(sympy.Sum, sympy.Product) if any(lim[0].name in taken for lim in s.limits)]
    if not sums:
        return expr
    used = {getattr(x, "name", "") for x in expr.atoms(Symbol)} | taken
    fresh = iter(c for c in "lpuvwtsrzyx" if c not in used and not any(re.search(_token(c), u) for u in used))
    mapping = {}
    for s in sums:
        renames: dict[str, Symbol] = {}
        for lim in s.limits:
            new = next(fresh, None) if lim[0].name in taken else lim[0].name
            if new is None:
                return expr
            if new != lim[0].name:
                renames[lim[0].name] = Symbol(new, **lim[0].assumptions0)
        mapping[s] = s.xreplace({x: _renamed(x, renames) for x in s.atoms(Symbol)})
    return expr.xreplace(mapping)


def _renamed(x: Symbol, renames: dict[str, Symbol]) -> Symbol:
    """The symbol with bound variables renamed: the variable itself (whatever it was read with), or in an index."""
    if x.name in renames:
        return renames[x.name]
    name = x.name
    for old, new in renames.items():
        name = re.sub(_token(old), new.name, name)
    return Symbol(name, **x.assumptions0) if name != x.name else x


def _substitute(expr: Any, mapping: dict[Any, Any]) -> Any:
    """Simultaneous substitution of matrices or scalars for the parameters."""
    taken = {getattr(x, "name", "") for v in mapping.values() if isinstance(v, sympy.Basic) for x in v.atoms(Symbol)}
    if isinstance(expr, sympy.Basic) and not isinstance(expr, MatrixBase):
        expr = _fresh_bound(expr, taken)
    if any(isinstance(v, MatrixBase) for v in mapping.values()):
        if expr in mapping:
            return mapping[expr]
        if any(p in expr.free_symbols for p, v in mapping.items() if isinstance(v, MatrixBase)):
            raise ClaimParseError("a vector or matrix argument inside a scalar formula cannot be read")
    return expr.xreplace(mapping)


@dataclass(frozen=True)
class Scope:
    """The domains stated so far and the definitions made so far (empty for a lone claim).

    ``symbols`` maps a symbol's name as SymPy's LaTeX parser spells it (``theta``, ``W_{q}``)
    to its definition; ``patterns`` maps a subscripted base as written (``\\theta``, ``R``);
    ``functions`` maps a function's name (``f_{q}``, ``rotate_half``). ``strict_products``:
    a matrix times an undefined name on its right is not read (in a document such a name is
    a vector it did not define; in a lone claim every free name is a number).
    ``inner_product``: how ``\\langle u, v \\rangle`` of complex values is read (see
    :func:`.sympy_syntax.inner_product`; the real inner product unless an audit tries another);
    ``inner_product_complex``: the Hermitian convention of one marked ``\\rangle_\\mathbb{C}`` (see
    :mod:`.inner_fields`; one marked ``_\\mathbb{R}`` is the real one); ``inner_stated``: the line where the
    document writes ``<A, B> = Re[A conj(B)]``, so its unmarked inner products are the real one only (0: none, see
    :mod:`ropecheck.symbolic.audit.stated_inner`).

    Notation with two readings, each an :class:`~.latex_syntax.AmbiguousReading` unless a reading is
    chosen: ``index_i`` says ``i`` is also an index here (``\\theta_i``, ``x_{2i}``), so a bare ``i``
    outside an exponent of e is the imaginary unit or that index -- ``i_reading`` picks ``"unit"`` or
    ``"index"``. ``complex_sums``: ``"document"`` where the document writes i as the unit (``e^{i\\theta}``,
    ``\\text{Re}``), so ``X + iY`` is a complex number there; ``"off"`` in a step that indexes with i (see
    :mod:`.complex_sums`). ``star_names`` are the names written ``b^*`` and never conjugated otherwise
    (``\\bar b``, ``b^\\dagger``): the conjugate of a complex b, or a separate real name (``b^*``,
    "the optimal b") -- ``star_reading`` picks ``"conjugate"`` or ``"name"``. Glued letters (``pos``,
    ``PE_{...}``) are one name or a product of letters -- ``word_reading`` picks ``"name"`` or ``"product"``.
    ``a \\cdot b`` of two complex values is their product or the dot product of the pairs they stand for --
    ``dot_reading`` picks ``"product"`` or ``"pairs"`` (see :mod:`.complex_dots`); ``dot_stated``: the line where
    the document writes ``a \\cdot b = Re[a conj(b)]``, so its other steps read such a ``\\cdot`` that way only (0:
    none, see :mod:`ropecheck.symbolic.audit.stated_dot`).

    ``generic_blocks``: the vectors and matrices read are one block of longer ones (see
    :mod:`.ellipsis`), so a product that sums over their entries (``u^T v``, an inner product)
    would sum over one block only and is not read -- unless ``block_sums``: then it is read as
    :data:`.latex_tree.BLOCK_MARK` times the block's share, and a caller that knows every vector has
    the same length decides a step linear in the mark block by block.

    ``general_matrices``: each undefined name of one Latin letter (subscripts allowed) is read as a
    general matrix of symbolic size -- an upper-case one d x d, a lower-case one d x 1 -- and
    products keep their written order (see :mod:`.general_matrices`); an identity proved so holds
    for every matrix and vector the names may stand for. ``matrix_names``: names the document writes
    transposed (``x_m^T``): vectors or matrices there, so a step that reads one as a number is not decided;
    ``array_names`` adds those it writes in bold: only these are read as general matrices. ``row_names``: vectors
    the document writes as rows (``x_i W_Q``), read ``1 x d``; ``column_names``: capitals it uses as vectors
    (``<R X, Y>``), read ``d x 1`` (see :mod:`ropecheck.symbolic.audit.vector_conventions`).
    ``ordered_functions``: the value of an undefined function (``R_f(q, m)``) may be a matrix, so products of
    such values keep their written order (SymPy's noncommutative functions). ``matrix_exponentials``: ``exp`` of a
    written-out square matrix is read as its matrix exponential (see :mod:`.matrix_powers`); False refuses it.
    ``aliases``: decorated names the document defined (``\\tilde{k}``, ``\\lambda'_d``), each a pattern of its uses
    and the upright name it stands for (see :mod:`.decorations`), or its right side to write out where that side
    was not read as a value (see :mod:`.decorated_values`).
    such values keep their written order (SymPy's noncommutative functions). ``components``: names the
    document defines as vectors of their own numbered entries (``q_m = [q_m^1 \\\\ q_m^2]``): ``q_m^1`` is then
    a name of its own, not a power (see :mod:`.components`). ``complex_pairs``: names the document defines as a
    column (a, b) and then writes as the complex number a + ib, each with that number and its line (see
    :mod:`ropecheck.symbolic.audit.complex_pairs`). ``freed``: names the text gives a value in passing (``$I = 3$``),
    read here for every value: free, yet never a name nothing defines (see :mod:`.identity_matrix`).
    ``commutators``: the document defines ``[A, B] = AB - BA``, so a bracket of two matrices is their commutator
    (see :mod:`.commutators`). ``given_again``: names the text gives two different values in passing (``$m = 1$``,
    later ``$m = 2$``): which one a step means is not known, so no step is refuted at the later one.
    """

    domains: Mapping[str, str] = field(default_factory=dict)
    symbols: Mapping[str, Definition] = field(default_factory=dict)
    patterns: Mapping[str, Definition] = field(default_factory=dict)
    functions: Mapping[str, Definition] = field(default_factory=dict)
    strict_products: bool = False
    inner_product: str = "real"
    inner_product_complex: str = "conjugate-second"
    inner_stated: int = 0
    index_i: bool = False
    i_reading: str = ""
    complex_sums: str = ""
    star_names: frozenset[str] = frozenset()
    bracket_names: frozenset[str] = frozenset()  # those of star_names that stand in a conjugated bracket
    star_reading: str = ""
    word_reading: str = ""
    dot_reading: str = ""
    dot_stated: int = 0
    generic_blocks: bool = False
    block_sums: bool = False
    general_matrices: bool = False
    matrix_names: frozenset[str] = frozenset()
    array_names: frozenset[str] = frozenset()
    row_names: frozenset[str] = frozenset()
    column_names: frozenset[str] = frozenset()
    ordered_functions: bool = False
    matrix_exponentials: bool = True
    aliases: tuple[tuple[str, str], ...] = ()
    components: frozenset[str] = frozenset()
    complex_pairs: tuple[tuple[str, Any, int], ...] = ()
    freed: frozenset[str] = frozenset()
    commutators: bool = False
    given_again: frozenset[str] = frozenset()

    def with_domains(self, domains: Mapping[str, str]) -> Scope:
        return replace(self, domains=dict(domains))

    def defines(self, name: str) -> bool:
        return name in self.symbols or name in self.patterns or name in self.functions
