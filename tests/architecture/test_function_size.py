"""Procedures a newcomer can hold in their head: none over 100 lines in the package, and no function
of the verifier (``ropecheck/verify/``) with more than 6 parameters (its state travels in one frozen
``RunContext`` / ``VerifyOptions``, not in long parameter lists)."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "ropecheck"
MAX_LINES = 100
MAX_PARAMETERS = 6  # in ropecheck/verify/; self/cls and **changes not counted


def _functions(source: str):  # type: ignore[no-untyped-def]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node


def _parameters(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    a = fn.args
    names = [x.arg for x in (*a.posonlyargs, *a.args, *a.kwonlyargs)] + ([a.vararg.arg] if a.vararg else [])
    return len([n for n in names if n not in ("self", "cls")])


def too_long(source: str) -> list[str]:
    return [f"{fn.name} ({fn.end_lineno - fn.lineno + 1} lines)" for fn in _functions(source)
            if (fn.end_lineno or fn.lineno) - fn.lineno + 1 > MAX_LINES]  # fmt: skip


def too_many_parameters(source: str) -> list[str]:
    return [f"{fn.name} ({_parameters(fn)})" for fn in _functions(source) if _parameters(fn) > MAX_PARAMETERS]


def test_no_procedure_over_100_lines() -> None:
    found = {str(f.relative_to(PACKAGE)): too_long(f.read_text()) for f in PACKAGE.rglob("*.py")}
    assert {k: v for k, v in found.items() if v} == {}


def test_no_verifier_function_takes_more_than_6_parameters() -> None:
    files = (PACKAGE / "verify").rglob("*.py")
    found = {str(f.relative_to(PACKAGE)): too_many_parameters(f.read_text()) for f in files}
    assert {k: v for k, v in found.items() if v} == {}


def test_the_checks_see_a_long_procedure_and_a_long_parameter_list() -> None:
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_LINES))
    assert too_long(f"def f():\n{body}\n") == [f"f ({MAX_LINES + 1} lines)"]
    assert too_long("def f():\n    return 1\n") == []
    assert too_many_parameters("def f(a, b, c, d, e, f, g):\n    pass\n") == ["f (7)"]
    assert too_many_parameters("class C:\n    def m(self, a, b, c, d, e, f, **changes):\n        pass\n") == []
