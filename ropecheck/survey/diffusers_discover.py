"""Find every rotary embedding class of the installed diffusers, from its sources (nothing imported).

diffusers has no registry of rotary embeddings: its image and video transformers each define
their own (``FluxPosEmbed``, ``WanRotaryPosEmbed``, ``MochiRoPE``, ``RopeEmbedder``, ...). Every
``.py`` file under ``diffusers/models/`` and ``diffusers/pipelines/`` is read with :mod:`ast`
(located with :func:`importlib.util.find_spec`, never imported) and a top-level class is a
rotary embedding when its name says so (``Rotary``, ``RoPE``/``Rope``, ``PosEmbed``, or Flux's original
``EmbedND``: Bria's and PRX's) and its body
computes rotary frequencies: it calls diffusers' ``get_*_rotary_pos_embed*`` helpers, builds
complex frequencies (``torch.polar``), or takes both a cosine and a sine. A class named so that
computes nothing (a modular pipeline's ``*RoPEInputsStep``, which only prepares ids) is not one.
The module-level helpers of ``diffusers/models/embeddings.py`` (``get_1d_rotary_pos_embed``,
``get_2d_rotary_pos_embed*``, ``get_3d_rotary_pos_embed*``, ``apply_rotary_emb*``) are found the
same way and surveyed as rows of their own.

Each class found is a :class:`~ropecheck.survey.discover.Family` of library ``diffusers``, named
``<module>/<Class>`` (``transformer_flux/FluxPosEmbed``: the module's last dotted part; a pipeline's module with
its pipeline, ``kolors.text_encoder/RotaryEmbedding``), so the
rest of the survey (running, expected findings, rendering) treats it like a transformers family.

Design constraints: no hand-written class list (a new diffusers release is covered without a code
change); the sources can be replaced (``sources``) so tests add a class; diffusers is not imported.
"""

from __future__ import annotations

import ast
import functools
import importlib.util
import re
from collections.abc import Mapping
from pathlib import Path

from .discover import Family

__all__ = ["HELPER_FUNCTIONS", "LIBRARY", "diffusers_version", "discover_diffusers", "rotary_classes_in"]

LIBRARY = "diffusers"
#: A class whose name says it is a rotary embedding (``EmbedND``: the name of Flux's original, which Bria and PRX keep).
_NAME = re.compile(r"Rotary|RoPE|Rope|PosEmbed|EmbedND")
#: Calls that compute rotary frequencies (diffusers' helpers, complex exponentials).
_FREQUENCY_CALLS = re.compile(r"^(get_\w*rotary\w*|polar)$")
#: The module-level helpers of ``diffusers/models/embeddings.py`` that are rotary embeddings.
HELPER_FUNCTIONS = re.compile(r"^(get_\w*rotary_pos_embed\w*|apply_rotary_emb\w*)$")
_FOLDERS = ("models", "pipelines")


def diffusers_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("diffusers")
    except PackageNotFoundError:
        return "not installed"


def _called(node: ast.AST) -> set[str]:
    out = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Call):
            f = n.func
            out.add(f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else "")
    return out


def rotary_classes_in(source: str) -> list[str]:
    """The rotary embedding classes a module defines, in source order (top-level classes only)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    out = []
    for node in tree.body:
        if not isinstance(node, ast.ClassDef) or not _NAME.search(node.name):
            continue
        calls = _called(node)
        if any(_FREQUENCY_CALLS.match(c) for c in calls) or {"cos", "sin"} <= calls:
            out.append(node.name)
    return out


def _helpers_in(source: str) -> list[str]:
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    return [n.name for n in tree.body if isinstance(n, ast.FunctionDef) and HELPER_FUNCTIONS.match(n.name)]


def _module_files(root: Path) -> dict[str, Path]:
    """dotted module name -> file, for every ``.py`` under ``models/`` and ``pipelines/`` (sorted)."""
    out = {}
    for folder in _FOLDERS:
        for path in sorted((root / folder).rglob("*.py")):
            rel = path.relative_to(root.parent).with_suffix("")
            out[".".join(rel.parts)] = path
    return out


def discover_diffusers(sources: Mapping[str, str] | None = None) -> dict[str, Family]:
    """Every rotary class (and rotary helper of ``embeddings``) of diffusers, by row name (sorted).

    ``sources``: module name -> source text, standing in for the installed files (tests). Without it the
    installed diffusers is read once per process; ``ImportError`` when it is not installed.
    """
    if sources is None:
        return dict(_discover_installed())
    return _discover(sources)


@functools.lru_cache(maxsize=1)
def _discover_installed() -> dict[str, Family]:
    spec = importlib.util.find_spec("diffusers")
    if spec is None or not spec.origin:
        raise ImportError("No module named 'diffusers'")
    root = Path(spec.origin).parent
    files = _module_files(root)
    return _discover({name: path.read_text(encoding="utf-8") for name, path in files.items()})


def _discover(sources: Mapping[str, str]) -> dict[str, Family]:
    found: dict[str, Family] = {}
    for module, source in sources.items():
        if not _NAME.search(source) and "rotary" not in source:
            continue  # nothing rotary named: no need to read its syntax tree
        # a pipeline's file names are generic (text_encoder, connectors): the pipeline's name goes with them
        parts = module.split(".")
        short = ".".join(parts[2:]) if parts[1:2] == ["pipelines"] else parts[-1]
        for cls in rotary_classes_in(source):
            found[f"{short}/{cls}"] = Family(f"{short}/{cls}", module, "", module, (cls,), (), library=LIBRARY)
        if short == "embeddings":
            for fn in _helpers_in(source):
                found[f"{short}/{fn}"] = Family(f"{short}/{fn}", module, "", module, (), (fn,), library=LIBRARY)
    return dict(sorted(found.items()))
