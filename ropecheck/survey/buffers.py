"""What ``module.to(dtype)`` does to a rotary module's complex buffers: a structural check of a class the
survey cannot drive through the protocol.

``nn.Module.to(dtype)`` with a real dtype casts every complex buffer to it, keeping only the real part
(torch warns and goes on). A ``freqs_cis`` buffer holding ``cos + i sin`` becomes a table of cos: the sin
is gone, and what the apply function multiplies by is no longer a rotation. Real buffers (``inv_freq``)
are judged by the verifier through the module's output; a class whose positions no protocol input reaches
(Llama 4's vision rotary: a fixed image grid at 1-based positions plus a CLS row) still has its buffers
checked here, cast exactly as the ``cast`` mode casts a driven module.

Design constraints: the finding is measured, not inferred from dtypes: the largest ``|Im|`` the buffer
held before the cast and what is left of it after; a buffer that keeps its imaginary part (a complex
dtype given, or a module whose ``to`` is overridden) is no finding. torch is imported lazily.
"""

from __future__ import annotations

import copy
import warnings
from collections.abc import Sequence
from typing import Any

__all__ = ["COMPLEX_BUFFER_CAST", "complex_buffer_findings"]

#: A complex buffer (or parameter) made real by ``module.to(dtype)``: its imaginary part lost.
COMPLEX_BUFFER_CAST = "precision/complex_buffer_cast"


def _complex_tensors(module: Any) -> dict[str, Any]:
    named = [*module.named_buffers(), *module.named_parameters()]
    return {name: t for name, t in named if t.is_complex()}


def complex_buffer_findings(module: Any, dtypes: Sequence[str]) -> list[tuple[str, str, str]]:
    """``(cell, label, message)`` for each dtype whose ``module.to(dtype)`` (on a copy) loses the imaginary
    part of a complex buffer that had one; the cell is ``cast/<dtype>``. Empty when nothing is lost."""
    import torch  # heavy: imported when used

    before = _complex_tensors(module)
    if not before:
        return []
    out: list[tuple[str, str, str]] = []
    for dt in dtypes:
        with warnings.catch_warnings():  # the warning is the finding; it is measured below
            warnings.simplefilter("ignore")
            cast = copy.deepcopy(module).to(getattr(torch, dt))
        after = {**dict(cast.named_buffers()), **dict(cast.named_parameters())}
        for name, old in before.items():
            new = after.get(name)
            held = float(old.imag.abs().max()) if old.numel() else 0.0
            left = float(new.imag.abs().max()) if new is not None and new.is_complex() and new.numel() else 0.0
            if held == 0.0 or left > 0.0:
                continue
            out.append(
                (
                    f"cast/{dt}",
                    COMPLEX_BUFFER_CAST,
                    f"module.to({dt}) turns the {str(old.dtype).replace('torch.', '')} buffer `{name}` "
                    f"{tuple(old.shape)} into a real {str(new.dtype).replace('torch.', '') if new is not None else '?'}"
                    f" tensor: only its real part (cos) is kept; its imaginary part (sin, up to {held:.3g} in "
                    "magnitude) is lost, so the table no longer holds rotations",
                )
            )
    return out
