"""Import a fixture module by its path (fixtures are files, not a package): the adapter tests' planted bugs."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType


def module_from_file(path: Path) -> ModuleType:
    """The module the file at ``path`` defines, executed once per call."""
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec and spec.loader, path
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
