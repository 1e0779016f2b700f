"""Find every model family of the installed transformers whose modeling code defines a rotary embedding.

The registry is transformers' own: ``CONFIG_MAPPING_NAMES`` (model_type -> config class name)
and ``model_type_to_module_name``. For each family the modeling module's *source* is read
(located with :func:`importlib.util.find_spec`, never imported: importing ~400 modeling modules
takes minutes) and scanned for ``class *RotaryEmbedding`` and ``def apply_rotary*`` that the
module also uses (a name read somewhere in its code): a copy of ``apply_rotary_pos_emb`` that
nothing calls -- left behind in modules generated from a template, in models without RoPE
(Jamba, Nemotron-H, Parakeet) -- is no rotary embedding. A
model_type whose config class is only a sub-config of another one in the same module
(``qwen2_vl_text`` inside ``qwen2_vl``) is that family's component, not a family of its own.

Design constraints: no hand-written family list (a new release is covered without a code
change); the registry can be replaced (:class:`Registry`) so tests add a family; transformers
is imported lazily.
"""

from __future__ import annotations

import ast
import functools
import importlib.util
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["Family", "Registry", "discover", "installed_registry", "transformers_version"]

#: DINOv3 ViT and Sapiens 2 name theirs ``*RopePositionEmbedding``
_ROTARY_CLASS = re.compile(r"^class (\w*(?:RotaryEmbedding|RopePositionEmbedding))\b", re.M)
_APPLY_FN = re.compile(r"^def (apply_rotary\w*)\s*\(", re.M)


@dataclass(frozen=True)
class Family:
    """A model family with a rotary embedding, as found in the source (nothing imported yet).

    Args:
        model_type: the registry key (``"llama"``).
        module: the modeling module (``"transformers.models.llama.modeling_llama"``).
        config_class: the config class name, importable from ``config_module``.
        config_module: where the config class is defined.
        rotary_classes: the ``*RotaryEmbedding`` classes the module defines, in source order.
        apply_functions: the ``apply_rotary*`` functions the module defines, in source order.
        components: model_types whose configs are sub-configs of this one (same module).
        library: the library surveyed (``"diffusers"``: a class found by :mod:`.diffusers_discover`).
    """

    model_type: str
    module: str
    config_class: str
    config_module: str
    rotary_classes: tuple[str, ...]
    apply_functions: tuple[str, ...]
    components: tuple[str, ...] = ()
    library: str = "transformers"

    def to_dict(self) -> dict[str, Any]:
        if self.library != "transformers":
            return {
                "library": self.library,
                "module": self.module,
                "rotary_classes": list(self.rotary_classes),
                "functions": list(self.apply_functions),
            }
        return {
            "model_type": self.model_type,
            "module": self.module,
            "config_class": self.config_class,
            "rotary_classes": list(self.rotary_classes),
            "apply_functions": list(self.apply_functions),
            "components": list(self.components),
        }


@dataclass(frozen=True)
class Registry:
    """model_type -> config class name, and model_type -> modeling package name (as transformers maps them)."""

    config_names: Mapping[str, str]
    module_name: Callable[[str], str]
    package: str = "transformers.models"
    sources: Mapping[str, str] = field(default_factory=dict)  # module -> source text, to stand in for files

    def source(self, module: str) -> str | None:
        if module in self.sources:
            return self.sources[module]
        try:
            spec = importlib.util.find_spec(module)
        except (ImportError, ValueError):
            return None
        if spec is None or not spec.origin or not spec.origin.endswith(".py"):
            return None
        return Path(spec.origin).read_text(encoding="utf-8")


def installed_registry() -> Registry:
    """The installed transformers' registry (imports only its auto-configuration module)."""
    from transformers.models.auto import configuration_auto  # optional: the surveyed library

    return Registry(dict(configuration_auto.CONFIG_MAPPING_NAMES), configuration_auto.model_type_to_module_name)


def transformers_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("transformers")
    except PackageNotFoundError:
        return "not installed"


def _sub_config_names(source: str) -> dict[str, set[str]]:
    """config class name -> the class names its ``sub_configs`` mapping names (from the source)."""
    out: dict[str, set[str]] = {}
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return out
    for node in tree.body:
        if not isinstance(node, ast.ClassDef):
            continue
        for stmt in node.body:
            if isinstance(stmt, ast.Assign):
                targets = stmt.targets
            elif isinstance(stmt, ast.AnnAssign):
                targets = [stmt.target]
            else:
                continue
            named = any(isinstance(t, ast.Name) and t.id.startswith("sub_configs") for t in targets)
            if named and isinstance(stmt.value, ast.Dict):
                found = {
                    n.id for v in stmt.value.values if v is not None for n in ast.walk(v) if isinstance(n, ast.Name)
                }
                out.setdefault(node.name, set()).update(found)
    return out


def _used_names(source: str) -> set[str]:
    """Every name the module reads (``f(...)``, ``x = f``, ``Cls(config)``) outside decorators, from its syntax tree."""
    try:
        tree = ast.parse(source)
    except SyntaxError:  # unreadable: count every defined name as used rather than drop the family
        return set(_ROTARY_CLASS.findall(source)) | set(_APPLY_FN.findall(source))
    # one walk that never enters a decorator: `@use_kernelized_func(apply_rotary_pos_emb)` on an attention class
    # that never calls it registers a kernel for code that does not run
    used: set[str] = set()
    todo: list[ast.AST] = [tree]
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Name):
            if isinstance(node.ctx, ast.Load):
                used.add(node.id)
            continue
        for name, value in ast.iter_fields(node):
            if name == "decorator_list":
                continue
            if isinstance(value, list):
                todo.extend(v for v in value if isinstance(v, ast.AST))
            elif isinstance(value, ast.AST):
                todo.append(value)
    return used


def discover(registry: Registry | None = None) -> dict[str, Family]:
    """Every family with a rotary embedding class or an ``apply_rotary*`` function it uses, by model_type (sorted).

    The installed transformers (no ``registry``) is read once per process: its files do not change under it.
    """
    if registry is None:
        return dict(_discover_installed())
    return _discover(registry)


@functools.lru_cache(maxsize=1)
def _discover_installed() -> dict[str, Family]:
    return _discover(installed_registry())


def _discover(reg: Registry) -> dict[str, Family]:
    by_module: dict[str, list[str]] = {}
    for model_type in reg.config_names:
        by_module.setdefault(reg.module_name(model_type), []).append(model_type)
    families: dict[str, Family] = {}
    for name, model_types in by_module.items():
        module = f"{reg.package}.{name}.modeling_{name}"
        source = reg.source(module)
        if source is None:
            continue
        defined_classes, defined_functions = _ROTARY_CLASS.findall(source), _APPLY_FN.findall(source)
        if not defined_classes and not defined_functions:
            continue  # nothing rotary defined: no need to read its syntax tree
        used = _used_names(source)
        classes = tuple(c for c in dict.fromkeys(defined_classes) if c in used)
        functions = tuple(f for f in dict.fromkeys(defined_functions) if f in used)
        if not classes and not functions:
            continue
        config_module = f"{reg.package}.{name}.configuration_{name}"
        subs = _sub_config_names(reg.source(config_module) or "")
        referenced = {c for names in subs.values() for c in names}
        top = [mt for mt in model_types if reg.config_names[mt] not in referenced] or model_types[:1]
        components = tuple(mt for mt in model_types if mt not in top)
        for mt in top:
            families[mt] = Family(
                mt,
                module,
                reg.config_names[mt],
                config_module,
                classes,
                functions,
                components if mt == top[0] else (),
            )
    return dict(sorted(families.items()))
