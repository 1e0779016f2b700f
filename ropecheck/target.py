"""Loading a verification target: ``package.module:attr`` or ``path/to/file.py:attr``.

The attribute may be dotted (``module:Class.method``). A file target is imported under a
private module name with its folder first on ``sys.path`` (so it can import its siblings),
and removed again afterwards.

Design constraints: every failure a user can cause -- no colon, a module that does not
import, an attribute that is missing or not callable -- is a :class:`TargetError` with a
message that says what to fix; the CLI turns it into one line and exit code 2. An
exception raised *while importing* the target is reported by type and message, never as a
traceback.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .errors import TargetError

__all__ = ["load_target", "split_target"]


def split_target(target: str) -> tuple[str, str]:
    """``"pkg.mod:attr"`` -> ``("pkg.mod", "attr")``; a Windows drive colon is not a separator.

    Example:
        >>> split_target("tests/fixtures/x.py:rope")
        ('tests/fixtures/x.py', 'rope')
    """
    if not isinstance(target, str) or ":" not in target:
        raise TargetError(f"target {target!r} must be 'package.module:attr' or 'path/to/file.py:attr'")
    module, _, attr = target.rpartition(":")
    if not module or not attr or (len(module) == 1 and module.isalpha()):
        raise TargetError(f"target {target!r} must be 'package.module:attr' or 'path/to/file.py:attr'")
    return module, attr


def _import_file(path: Path) -> Any:
    if not path.exists():
        raise TargetError(f"target file not found: {path}")
    name = "_ropecheck_target_" + "".join(c if c.isalnum() else "_" for c in str(path.resolve()))
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise TargetError(f"cannot import {path} as a Python module")
    module = importlib.util.module_from_spec(spec)
    folder = str(path.resolve().parent)
    sys.path.insert(0, folder)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except SystemExit as exc:
        sys.modules.pop(name, None)
        raise TargetError(f"importing {path} called exit({exc.code})") from None
    except Exception as exc:
        sys.modules.pop(name, None)
        raise TargetError(f"importing {path} raised {type(exc).__name__}: {exc}") from None
    finally:
        try:
            sys.path.remove(folder)
        except ValueError:  # pragma: no cover - the module removed it itself
            pass
    return module


def _import_module(name: str) -> Any:
    if str(Path.cwd()) not in sys.path and "" not in sys.path:
        sys.path.insert(0, str(Path.cwd()))  # as `python -m` would: the current folder is importable
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name and (name == exc.name or name.startswith(exc.name + ".")):
            raise TargetError(f"module {name!r} not found (is it installed, or is the current folder right?)") from None
        raise TargetError(f"importing {name!r} raised ModuleNotFoundError: {exc}") from None
    except SystemExit as exc:
        raise TargetError(f"importing {name!r} called exit({exc.code})") from None
    except Exception as exc:
        raise TargetError(f"importing {name!r} raised {type(exc).__name__}: {exc}") from None


def load_target(target: str) -> Callable[..., Any]:
    """Import ``target`` and return the callable it names.

    Args:
        target: ``package.module:attr`` or ``path/to/file.py:attr``; ``attr`` may be dotted.

    Raises:
        TargetError: not importable, attribute missing, or not callable.
    """
    module_part, attr = split_target(target)
    if module_part.endswith(".py") or "/" in module_part or "\\" in module_part:
        module = _import_file(Path(module_part))
        where = module_part
    else:
        module = _import_module(module_part)
        where = module_part
    obj: Any = module
    for part in attr.split("."):
        if not part.isidentifier():
            raise TargetError(f"{attr!r} is not a valid attribute name in target {target!r}")
        try:
            obj = getattr(obj, part)
        except AttributeError:
            available = sorted(n for n in dir(module) if not n.startswith("_") and callable(getattr(module, n, None)))
            shown = ", ".join(available[:12]) + (" ..." if len(available) > 12 else "")
            raise TargetError(
                f"{where} has no attribute {attr!r}" + (f" (callables there: {shown})" if shown else "")
            ) from None
    if not callable(obj):
        raise TargetError(f"{where}:{attr} is a {type(obj).__name__}, not a callable")
    return obj  # type: ignore[no-any-return]
