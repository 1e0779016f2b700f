"""Find every rotary embedding of the installed timm, from its sources (nothing imported).

timm's rotary embeddings live in ``timm/layers/pos_embed_sincos.py`` (``RotaryEmbedding``,
``RotaryEmbeddingCat``, ``RotaryEmbeddingMixed``, ...) and its helpers (``apply_rot_embed*``,
``build_rotary_pos_embed``, ``create_rope_embed``), and a model file may define its own (Gemma 4's
vision encoder). Every ``.py`` file under ``timm/layers/`` and ``timm/models/`` is read with :mod:`ast`
(located with :func:`importlib.util.find_spec`, which does not import the package: importing timm
imports torchvision) and two kinds of top-level definitions are rotary embeddings:

* a public class whose name says so (``Rotary``, ``RoPE``/``Rope``) and whose body computes rotary
  frequencies or tables: it takes both a cosine and a sine, or calls a frequency or embedding builder
  (``freq_bands``, ``get_mixed_freqs``, ``_build_embed``, ``build_rotary_pos_embed``). An attention layer that
  only applies a table it is given (``AttentionRope``) and an iterator over tables (``NaFlexRopeIterator``)
  are not; neither is the private base ``_RotaryEmbeddingBase`` (its code runs in its subclasses' rows);
* a public, undecorated function whose name has a word ``rot``, ``rotate``, ``rope`` or ``rotary``
  (``rot``, ``rope_rotate_half``, ``apply_rot_embed_cat``, ``apply_multidimensional_rope``): decorated ones are
  model entry points (``@register_model def vit_base_patch16_rope_224``).

Each is a :class:`~ropecheck.survey.discover.Family` of library ``timm``, named ``<module>/<name>``
(``pos_embed_sincos/RotaryEmbeddingCat``, ``gemma4_vit/apply_multidimensional_rope``).

Design constraints: no hand-written list (a new timm release is covered without a code change); the sources
can be replaced (``sources``) so tests add a definition; timm is never imported here.
"""

from __future__ import annotations

import ast
import functools
import importlib.util
import re
from collections.abc import Mapping
from pathlib import Path

from .discover import Family

__all__ = ["LIBRARY", "discover_timm", "rotary_definitions", "timm_root", "timm_version"]

LIBRARY = "timm"
_CLASS_NAME = re.compile(r"Rotary|RoPE|Rope")
#: Calls that compute rotary frequencies or tables.
_FREQUENCY_CALLS = re.compile(r"freq|build_\w*embed|build_rotary")
_FUNCTION_WORDS = frozenset({"rot", "rotate", "rope", "rotary"})
_FOLDERS = ("layers", "models")


def timm_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("timm")
    except PackageNotFoundError:
        return "not installed"


def timm_root() -> Path:
    """The installed timm package folder, located without importing it; ``ImportError`` when absent."""
    spec = importlib.util.find_spec("timm")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("No module named 'timm'")
    return Path(next(iter(spec.submodule_search_locations)))


def _calls(node: ast.AST) -> set[str]:
    out = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Call):
            f = n.func
            out.add(f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else "")
    return out


def _is_rotary_class(node: ast.ClassDef) -> bool:
    if node.name.startswith("_") or not _CLASS_NAME.search(node.name):
        return False
    calls = _calls(node)
    return {"cos", "sin"} <= calls or any(_FREQUENCY_CALLS.search(c) for c in calls)


def _is_rotary_function(node: ast.FunctionDef) -> bool:
    return (
        not node.name.startswith("_") and not node.decorator_list and bool(_FUNCTION_WORDS & set(node.name.split("_")))
    )


def rotary_definitions(source: str) -> list[tuple[str, bool]]:
    """The rotary classes and functions a module defines at its top level, in source order: ``(name, is_class)``."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    out = []
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and _is_rotary_class(node):
            out.append((node.name, True))
        elif isinstance(node, ast.FunctionDef) and _is_rotary_function(node):
            out.append((node.name, False))
    return out


def discover_timm(sources: Mapping[str, str] | None = None) -> dict[str, Family]:
    """Every rotary class and helper of timm, by row name (sorted).

    ``sources``: module name -> source text, standing in for the installed files (tests). Without it the
    installed timm is read once per process; ``ImportError`` when it is not installed.
    """
    if sources is None:
        return dict(_discover_installed())
    return _discover(sources)


@functools.lru_cache(maxsize=1)
def _discover_installed() -> dict[str, Family]:
    root = timm_root()
    files = {}
    for folder in _FOLDERS:
        for path in sorted((root / folder).rglob("*.py")):
            files[".".join(path.relative_to(root.parent).with_suffix("").parts)] = path
    return _discover({name: path.read_text(encoding="utf-8") for name, path in files.items()})


def _discover(sources: Mapping[str, str]) -> dict[str, Family]:
    found: dict[str, Family] = {}
    for module, source in sources.items():
        if not re.search(r"rot|rope|Rope|RoPE|Rotary", source):
            continue  # nothing rotary named: no need to read its syntax tree
        short = module.rsplit(".", 1)[-1]
        for name, is_class in rotary_definitions(source):
            classes, functions = ((name,), ()) if is_class else ((), (name,))
            found[f"{short}/{name}"] = Family(
                f"{short}/{name}", module, "", module, classes, functions, library=LIBRARY
            )
    return dict(sorted(found.items()))
