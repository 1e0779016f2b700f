"""Names a package re-exports, imported on first use (PEP 562), so importing the package costs little.

``ropecheck`` and ``ropecheck.verify`` re-export their public names this way: every ``ropecheck``
command imports the package first, and ``ropecheck verify`` must be able to start the target's
process before the verifier itself is imported (a verdict then costs one torch import, the
child's, with this process's imports running beside it).

Design constraints: standard library only; a name is imported once and then bound in the
package's namespace like an ordinary import; an unknown name is an ``AttributeError``, so
``from package import submodule`` still finds submodules.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_getattr"]


def lazy_getattr(package: str, names: Mapping[str, str], namespace: dict[str, Any]) -> Callable[[str], Any]:
    """A module ``__getattr__`` importing ``names[name]`` (a module relative to ``package``) on first use.

    Example:
        >>> getattr_ = lazy_getattr("json", {"JSONDecoder": "decoder"}, {})
        >>> getattr_("JSONDecoder").__name__
        'JSONDecoder'
    """

    def __getattr__(name: str) -> Any:
        module = names.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{module}"), name)
        namespace[name] = value
        return value

    return __getattr__
