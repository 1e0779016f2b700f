"""Run the survey: every family, each layer type, both ways of running the module, every dtype.

One task per family runs in a worker process (``-j N``, forked after transformers' core is
imported): :func:`~ropecheck.survey.drive.prepare` imports the family's modeling module and
builds its rotary module, then each (layer type, mode) verdict runs at arm's length through
:func:`~ropecheck.verify.supervise.verify_isolated`, so a family that crashes, hangs or
exits is that family's finding and the survey goes on. The verdicts are then compared with
the reviewed expected findings (:mod:`.expected`).

Design constraints: the survey never crashes on one family (a worker lost is that family's
error); results come back in family order whatever the completion order, so the output is
deterministic.
"""

from __future__ import annotations

import multiprocessing
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from functools import partial

from ..errors import RopeCheckError
from ..verify.model import VerifyReport
from ..verify.supervise import Loaded, verify_isolated
from .buffers import complex_buffer_findings
from .diffusers_drive import diffusers_code_path, prepare_diffusers
from .discover import Family
from .drive import MODES, Driven, NotDriven, build_class, code_path, prepare, prepare_class
from .drive_special import prepare_special
from .timm_drive import prepare_timm, timm_code_path
from .timm_load import load_timm_module
from .vision2d import prepare_vision

__all__ = ["DEFAULT_MAX_POSITION", "FamilyResult", "Verdict", "run_family", "run_survey", "run_units"]

#: The valid range of every verdict (positions 0..N-1): the adapters' order of magnitude, and what
#: keeps ~200 families x 2 modes under a few minutes on two cores.
DEFAULT_MAX_POSITION = 4096


@dataclass
class Verdict:
    """One layer type of one family, run one way (``fp32`` or ``cast``), over the survey's dtypes."""

    layer_type: str
    mode: str
    report: VerifyReport

    def labels(self, dtype: str) -> list[str]:
        return list(self.report.dtype_verdict(dtype)["labels"])

    def covers(self, dtype: str) -> bool:
        return dtype in self.report.dtypes

    @property
    def key(self) -> str:
        return f"{self.mode}/{self.layer_type}" if self.layer_type else self.mode


@dataclass
class FamilyResult:
    """What the survey found for one family: driven (with its verdicts), skipped (with why), or an error."""

    family: Family
    status: str  # "driven", "skip", "error"
    reason: str = ""
    verdicts: list[Verdict] = field(default_factory=list)
    rotary_class: str = ""
    apply_function: str = ""
    code_path: str = ""
    specs: dict[str, str] = field(default_factory=dict)  # layer type ("" for one) -> spec in words
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0
    #: "" for the class the family is known by (its text rotary); the class's name for each other one
    unit: str = ""
    #: findings about the family's default config, ``(label, message)`` (:attr:`.drive.Driven.config_findings`)
    config_findings: list[tuple[str, str]] = field(default_factory=list)
    #: findings of the structural checks of a class the protocol cannot drive, or drives in the fp32 mode only,
    #: ``(cell, label, message)`` (:mod:`.buffers`)
    structural: list[tuple[str, str, str]] = field(default_factory=list)

    @property
    def name(self) -> str:
        """``llama4`` for the family's own row, ``llama4/Llama4VisionRotaryEmbedding`` for another class's."""
        return f"{self.family.model_type}/{self.unit}" if self.unit else self.family.model_type

    def labels(self, dtype: str) -> dict[str, list[str]]:
        """verdict key (``mode[/layer type]``) -> the dtype's finding labels (empty: PASS)."""
        return {v.key: v.labels(dtype) for v in self.verdicts if v.covers(dtype)}


#: Libraries surveyed one class (or helper) per row: how a row is prepared and how its code path is hashed.
_PER_CLASS: dict[str, tuple[Callable[[Family], list[Driven]], Callable[[Family, Driven], str]]] = {
    "diffusers": (prepare_diffusers, diffusers_code_path),
    "timm": (prepare_timm, timm_code_path),
}


def _load(driven: Driven, mode: str, name: str) -> Loaded:
    return Loaded(driven.make(mode), name)


def run_family(
    family: Family, *, dtypes: Sequence[str], max_position: int, timeout: float | None = 120.0
) -> FamilyResult:
    """Drive one family and verify each of its layer types both ways (in this process; verdicts in children)."""
    t0 = time.perf_counter()
    try:
        # the vision rotaries the project reads itself, then those that take no position ids, else the canonical one
        drivens = prepare_vision(family) or prepare_special(family) or prepare(family)
    except NotDriven as exc:
        return FamilyResult(family, "skip", reason=str(exc), seconds=time.perf_counter() - t0)
    return _verified(family, drivens, "", t0, dtypes=dtypes, max_position=max_position, timeout=timeout)


def run_units(
    family: Family, *, dtypes: Sequence[str], max_position: int, timeout: float | None = 120.0
) -> list[FamilyResult]:
    """The family's own row (:func:`run_family`), then one row for every other rotary class the module defines,
    each driven from the config that builds it (:func:`~.drive.prepare_class`)."""
    if family.library in _PER_CLASS:  # one class (or helper) per row
        t0 = time.perf_counter()
        try:
            drivens = _PER_CLASS[family.library][0](family)
        except NotDriven as exc:
            return [FamilyResult(family, "skip", reason=str(exc), seconds=time.perf_counter() - t0)]
        except Exception as exc:  # the library's own code failed in a way the driver did not foresee
            return [FamilyResult(family, "error", reason=f"{type(exc).__name__}: {exc}")]
        return [_verified(family, drivens, "", t0, dtypes=dtypes, max_position=max_position, timeout=timeout)]
    first = run_family(family, dtypes=dtypes, max_position=max_position, timeout=timeout)
    out = [first]
    for cls in family.rotary_classes:
        if first.status == "driven" and cls == first.rotary_class:
            continue
        t0 = time.perf_counter()
        try:
            drivens = prepare_vision(family, cls) or prepare_special(family, cls) or prepare_class(family, cls)
        except NotDriven as exc:
            out.append(FamilyResult(family, "skip", reason=str(exc), rotary_class=cls, unit=cls,
                                    structural=_structural(family, cls, dtypes),
                                    seconds=time.perf_counter() - t0))  # fmt: skip
            continue
        except Exception as exc:  # the family's own code failed in a way prepare_class did not foresee
            out.append(FamilyResult(family, "error", reason=f"{type(exc).__name__}: {exc}", rotary_class=cls, unit=cls))
            continue
        row = _verified(family, drivens, cls, t0, dtypes=dtypes, max_position=max_position, timeout=timeout)
        if row.status == "driven" and not any(v.mode == "cast" for v in row.verdicts):  # what the cast mode skips
            row.structural = _structural(family, cls, dtypes)  # (a complex table made real) is still checked
        out.append(row)
    return out


def _structural(family: Family, cls: str, dtypes: Sequence[str]) -> list[tuple[str, str, str]]:
    """What ``module.to(dtype)`` does to the buffers of a class the protocol cannot drive, built from the family's
    defaults (nothing when no default builds it)."""
    built = build_class(family, cls)
    if built is None:
        return []
    module, where = built
    return [
        (cell, label, f"{msg} (built from the {where} config)")
        for cell, label, msg in complex_buffer_findings(module, dtypes)
    ]


def _verified(
    family: Family,
    drivens: list[Driven],
    unit: str,
    t0: float,
    *,
    dtypes: Sequence[str],
    max_position: int,
    timeout: float | None,
) -> FamilyResult:
    """Each layer type of ``drivens`` verified both ways, in children."""
    first = drivens[0]
    result = FamilyResult(
        family,
        "driven",
        rotary_class=first.rotary_class,
        apply_function=first.apply_function,
        code_path=_PER_CLASS[family.library][1](family, first)
        if family.library in _PER_CLASS
        else code_path(family, first),
        specs={d.layer_type: d.spec.describe() for d in drivens},
        notes=sorted({n for d in drivens for n in d.notes}),
        unit=unit,
        config_findings=sorted({f for d in drivens for f in d.config_findings}),
    )
    for driven in drivens:
        for mode in (m for m in MODES if m in driven.modes):
            # module.to(float32) is the float32 module: the cast mode is run only for a low-precision dtype, and
            # with float32 too, where identification reads the frequencies (so a cast buffer is named as such)
            low = tuple(dt for dt in dtypes if dt != "float32")
            mode_dtypes = tuple(dtypes) if mode == "fp32" else ("float32", *low) if low else ()
            if not mode_dtypes:
                continue
            name = f"{result.name}{'/' + driven.layer_type if driven.layer_type else ''} ({mode})"
            try:
                report = verify_isolated(
                    partial(_load, driven, mode, name),
                    spec=driven.spec,
                    name=name,
                    dtypes=mode_dtypes,
                    device="cpu",
                    max_position=min(max_position, driven.max_position or max_position),
                    timeout=timeout,
                )
            except RopeCheckError as exc:  # the spec or options do not fit this family: ours to explain
                result.status, result.reason = "error", f"{name}: {exc}"
                break
            result.verdicts.append(Verdict(driven.layer_type, mode, report))
        if result.status == "error":
            break
    result.seconds = time.perf_counter() - t0
    return result


def _warm_imports(libraries: set[str] | None = None) -> None:
    """Import what every family needs once, before the workers fork (each then imports only its module)."""
    import torch  # heavy: imported when used

    torch.set_num_threads(1)
    if libraries and "timm" in libraries:
        try:
            load_timm_module("timm.layers.pos_embed_sincos")  # forked workers inherit it
        except Exception:  # pragma: no cover - a module that cannot load is its rows' SKIP
            pass
        if libraries == {"timm"}:
            return
    if libraries and "diffusers" in libraries:
        try:
            import diffusers.models.embeddings  # noqa: F401
            from diffusers.utils import logging as diffusers_logging

            diffusers_logging.set_verbosity_error()
        except Exception:  # pragma: no cover - a broken install shows up per class
            pass
        if "transformers" not in libraries:
            return
    try:
        import transformers.modeling_rope_utils
        import transformers.modeling_utils  # noqa: F401
        from transformers.utils import logging

        logging.set_verbosity_error()  # default configs warn about their own token ids: not the survey's business
    except Exception:  # pragma: no cover - a broken install shows up per family
        pass


def run_survey(
    families: Sequence[Family],
    *,
    dtypes: Sequence[str],
    max_position: int = DEFAULT_MAX_POSITION,
    jobs: int = 1,
    timeout: float | None = 120.0,
    done: Callable[[FamilyResult], None] | None = None,
) -> list[FamilyResult]:
    """Every family's rows (its own, then its other rotary classes'), in the order given; ``done`` is told of each
    row as its family finishes (any order)."""
    _warm_imports({f.library for f in families})
    task = partial(run_units, dtypes=tuple(dtypes), max_position=max_position, timeout=timeout)
    if jobs <= 1:
        out = []
        for fam in families:
            rows = task(fam)
            out += rows
            if done:
                for row in rows:
                    done(row)
        return out
    results: dict[str, list[FamilyResult]] = {}
    with ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("fork")) as pool:
        futures: dict[Future[list[FamilyResult]], Family] = {pool.submit(task, fam): fam for fam in families}
        for fut in as_completed(futures):
            fam = futures[fut]
            try:
                rows = fut.result()
            except Exception as exc:  # the worker itself died (a crash while importing the family)
                lost = f"the worker running it was lost: {type(exc).__name__}: {exc}"
                rows = [FamilyResult(fam, "error", reason=lost)]
            results[fam.model_type] = rows
            if done:
                for row in rows:
                    done(row)
    return [row for f in families for row in results[f.model_type]]
