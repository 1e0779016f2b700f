"""Verifying every installed adapter: one loop and one set of pages.

``ropecheck verify --all-adapters [--report-dir DIR]`` and the report's verify section both
call :func:`verify_adapters` and :func:`render_adapter_pages`, so the two write the same
``verify/`` folder for the same options. The pages are deterministic: the per-adapter JSON
leaves out ``duration_s`` (timings belong to the caller's terminal output or header block).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from ..adapters import ADAPTERS, Adapter
from ..io import round_floats
from ..isolate import DEFAULT_MEMORY_LIMIT
from .model import VerifyOptions, VerifyReport
from .render import render_markdown
from .supervise import Loaded, verify_isolated

__all__ = [
    "AdapterVerdict",
    "backward_cell",
    "compiled_cell",
    "dtype_cell",
    "render_adapter_pages",
    "verify_adapter_compiled",
    "verify_adapters",
]


@dataclass
class AdapterVerdict:
    """One adapter on one device: its report, or why it could not run here."""

    name: str
    adapter: Adapter
    report: VerifyReport | None = None
    reason: str | None = None
    seconds: float = 0.0

    @property
    def stem(self) -> str:
        """The page name: the adapter, and the device when it is not the CPU."""
        device = "cpu" if self.report is None else self.report.device
        return self.name if device == "cpu" else f"{self.name}-{device}"


def verify_adapters(
    *,
    devices: Sequence[str | None] = (None,),
    memory_limit: int | None = DEFAULT_MEMORY_LIMIT,
    progress: Callable[[str], None] | None = None,
    done: Callable[[AdapterVerdict], None] | None = None,
    **options: Any,
) -> list[AdapterVerdict]:
    """Verify every adapter that can run here on each device (None: the verifier's default device).

    CUDA-only adapters are not run on an explicit ``"cpu"``; an adapter that cannot run
    (library missing, CUDA needed) yields one verdict with its ``reason``. Each verdict runs
    in its own child process (:func:`~ropecheck.verify.supervise.verify_isolated`): the
    library is imported there, and a crash in one adapter is that adapter's finding.
    ``options`` are :class:`~ropecheck.verify.model.VerifyOptions` fields (``dtypes``, ``seed``, ...).
    """
    o = VerifyOptions().with_(**options)
    dtypes = tuple(o.dtypes)
    out: list[AdapterVerdict] = []
    for name, adapter in ADAPTERS.items():
        reason = adapter.unavailable_reason()
        if reason:
            out.append(AdapterVerdict(name, adapter, reason=reason))
            if done:
                done(out[-1])
            continue
        judged = adapter.judged_dtypes(list(dtypes))
        if not judged:
            out.append(
                AdapterVerdict(name, adapter, reason="; ".join(filter(None, map(adapter.dtype_skip_reason, dtypes))))
            )
            if done:
                done(out[-1])
            continue
        for device in devices:
            if device == "cpu" and adapter.requires_cuda:
                continue
            if progress:
                progress(f"{name} on {device or 'the default device'}")
            t0 = time.perf_counter()
            report = verify_isolated(
                partial(_load_adapter, adapter),
                spec=adapter.spec,
                options=o.with_(name=f"adapter:{name}", dtypes=judged, device=device),
                memory_limit=memory_limit,
            )
            out.append(AdapterVerdict(name, adapter, report=report, seconds=time.perf_counter() - t0))
            if done:
                done(out[-1])
    return out


def verify_adapter_compiled(
    name: str,
    *,
    dtypes: Sequence[str],
    backend: str = "aot_eager",
    seed: int = 0,
    timeout: float | None = None,
    memory_limit: int | None = DEFAULT_MEMORY_LIMIT,
) -> AdapterVerdict:
    """One adapter verified eagerly and under ``torch.compile(backend=backend)`` on the CPU (``verify --compile``)."""
    adapter = ADAPTERS[name]
    judged = adapter.judged_dtypes(list(dtypes))
    reason = adapter.unavailable_reason() or ("" if judged else f"{name} is judged in none of {', '.join(dtypes)}")
    if reason:
        return AdapterVerdict(name, adapter, reason=reason)
    t0 = time.perf_counter()
    report = verify_isolated(
        partial(_load_adapter, adapter),
        spec=adapter.spec,
        name=f"adapter:{name}",
        dtypes=judged,
        device="cpu",
        seed=seed,
        timeout=timeout,
        memory_limit=memory_limit,
        compile=True,
        compile_backend=backend,
    )
    return AdapterVerdict(name, adapter, report=report, seconds=time.perf_counter() - t0)


def compiled_cell(report: VerifyReport, dtype: str) -> str:
    """How the compiled verdict in ``dtype`` compares with the eager one (for a report run with ``compile``)."""
    return _compiled_cell(report, dtype).removeprefix("; compiled: ")


def _load_adapter(adapter: Adapter) -> Loaded:
    fn, _ = adapter.load()
    return Loaded(fn, f"adapter:{adapter.name}")


def dtype_cell(report: VerifyReport, dtype: str) -> str:
    """One dtype's verdict as the adapters matrix and the detail page both state it (see ``dtype_verdict``)."""
    v = report.dtype_verdict(dtype)
    text = f"FAIL {','.join(v['codes'])}" if v["verdict"] == "FAIL" else "PASS"
    n = len(v["consequences"])
    if n:
        text += f" ({n} failed check{'s' * (n != 1)} in {dtype}: consequence{'s' * (n != 1)} of the root causes)"
    return text + f"; backward: {backward_cell(report, dtype)}" + _compiled_cell(report, dtype)


def backward_cell(report: VerifyReport, dtype: str) -> str:
    """The backward verdict in one dtype: PASS, FAIL with its cause, SKIP (no autograd), or not run."""
    checks = [c for c in report.checks if c.category == "backward" and c.dtype == dtype]
    if not checks:
        return "not run"
    main = next((c for c in checks if c.name == "backward"), checks[0])
    failed = [c for c in checks if c.status == "fail"]
    if failed:  # the gradient's own cause first: a wrong gradient also breaks the double backward
        first = main if main.status == "fail" else failed[0]
        return f"FAIL {first.cause or first.code or 'backward'}"
    return "SKIP" if main.status == "skip" else "PASS"


def _compiled_cell(report: VerifyReport, dtype: str) -> str:
    if report.compile is None:
        return ""
    only = [c for c in report.compile["fail_only_compiled"] if c.endswith(f"({dtype})")]
    return f"; compiled: {'FAIL only compiled' if only else 'same as eager'}"


def _library(adapter: Adapter) -> str:

    try:
        return f"{adapter.library} {version(adapter.library)}"
    except PackageNotFoundError:
        return adapter.library


def _skip_reason(v: AdapterVerdict) -> str:
    """Why an adapter was not judged; a missing library in one form, whatever else the machine lacks."""
    if not v.adapter.installed:  # before CUDA: the page must not depend on what else this machine has
        return f"not installed: {v.adapter.library}"
    return v.reason or ""


def render_adapter_pages(
    verdicts: Sequence[AdapterVerdict], dtypes: Sequence[str], *, invocation: str
) -> dict[str, str]:
    """``README.md`` (the index), ``<stem>.md`` and ``<stem>.json`` per verdict, paths relative to the folder."""

    files: dict[str, str] = {}
    index = [
        "# Adapter verdicts",
        "",
        f"{invocation} (dtypes {', '.join(dtypes)}). One page per adapter and device.",
        "",
        "| adapter | library | device | verdict | per dtype (forward and backward) |",
        "|---|---|---|---|---|",
    ]
    for v in verdicts:
        if v.report is None:
            index.append(f"| `{v.name}` | {v.adapter.library} | - | skipped: {_skip_reason(v)} | |")
            continue
        r = v.report
        per_dtype = [
            f"{dt}: {dtype_cell(r, dt) if dt in r.dtypes else 'SKIP: ' + str(v.adapter.dtype_skip_reason(dt))}"
            for dt in dtypes
        ]
        index.append(
            f"| [`{v.name}`]({v.stem}.md) | {_library(v.adapter)} | {r.device} | "
            f"{'CONFORMS' if r.conforms else 'DOES NOT CONFORM'} | {'; '.join(per_dtype)} |"
        )
        files[f"{v.stem}.md"] = render_markdown(r)
        data: dict[str, Any] = r.to_dict()
        data.pop("duration_s", None)
        # measured floats to 6 significant digits: their last bits differ from machine to machine
        files[f"{v.stem}.json"] = json.dumps(round_floats(data, 6), indent=2, default=float) + "\n"
    return {"README.md": "\n".join(index) + "\n", **files}
