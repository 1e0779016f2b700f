"""The ``ropecheck`` pytest plugin (entry point ``pytest11``, name ``ropecheck``).

Use it from any project that has ropecheck installed (or with ``-p ropecheck``)::

    def test_my_rope(ropecheck):
        ropecheck.check(my_rope, spec=RopeSpec(head_dim=64))

    @pytest.mark.ropecheck(spec=RopeSpec(head_dim=64), dtype="bfloat16")
    def test_my_rope_bf16(ropecheck):
        ropecheck.check(my_rope)            # spec and dtype from the marker

    @pytest.mark.ropecheck(impl=my_rope, spec=RopeSpec(head_dim=64))
    def test_declared():                    # checked by the plugin before the body runs
        pass

A failure raises ``AssertionError`` that first names the root cause as ``ropecheck verify``
does -- its finding code (``positions/positions_ignored``, ``precision/angles_low_precision``,
...), its sentence and the fix -- then one ``torch.testing.assert_close``-like message per
failed property, plus the RoPE context (position, dimension pair, dtype, layout).

The implementation is called in a forked child process (:mod:`ropecheck.isolate`; turn it off
with ``--ropecheck-no-isolate``) and only its outputs come back, as data: every property,
comparison and diagnosis is computed in the test's process. If the implementation exits,
crashes, runs out of memory or hangs past ``--ropecheck-timeout``, the test fails saying so,
instead of the whole pytest session ending (``os._exit(0)`` in a RoPE would otherwise end the
run with exit status 0), and nothing it started outlives the check. What this cannot give: a
module the test file imports runs in the test's process, before any check -- code that must not
be trusted is judged with ``ropecheck verify`` (its file is imported only in the child).

Design constraints: thin -- options in one ``ropecheck`` group with constant names, a
report-header line, a marker; torch is imported only when a test uses the fixture or the
marker, so collecting other projects' tests stays cheap.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, cast

import pytest

from .errors import TargetMemoryError, UsageError
from .host import ProcessHost, TargetHost
from .isolate import ChildEnded, TargetProcess, available, describe_outcome
from .properties import PROPERTIES, as_implementation, backward_results, failure_message, run_all
from .protocol import Implementation
from .qk import pair_kind
from .version import __version__

__all__ = [
    "MARKER",
    "OPT_DEVICE",
    "OPT_COMPILE",
    "OPT_DTYPE",
    "OPT_NO_BACKWARD",
    "OPT_NO_ISOLATE",
    "OPT_PROPERTIES",
    "OPT_SEED",
    "OPT_TIMEOUT",
    "RopeChecker",
    "ropecheck",
    "verify_diagnosis",
]

if TYPE_CHECKING:  # pragma: no cover
    from .properties import PropertyResult
    from .spec import RopeSpec

OPT_SEED = "--ropecheck-seed"
OPT_DTYPE = "--ropecheck-dtype"
OPT_DEVICE = "--ropecheck-device"
OPT_PROPERTIES = "--ropecheck-properties"
OPT_NO_ISOLATE = "--ropecheck-no-isolate"
OPT_TIMEOUT = "--ropecheck-timeout"
OPT_NO_BACKWARD = "--ropecheck-no-backward"
OPT_COMPILE = "--ropecheck-compile"
MARKER = "ropecheck"
_MARKER_HELP = (
    "ropecheck(spec=None, impl=None, dtype=None, device=None, seed=None, properties=None, backward=None): "
    "defaults for the ropecheck fixture; with impl=, the plugin checks that implementation before the test body"
)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("ropecheck", "ropecheck: RoPE correctness checks")
    group.addoption(
        OPT_SEED,
        action="store",
        type=int,
        default=0,
        dest="ropecheck_seed",
        help="seed for the inputs ropecheck draws (default 0)",
    )
    group.addoption(
        OPT_DTYPE,
        action="store",
        default="float32",
        dest="ropecheck_dtype",
        choices=("float64", "float32", "bfloat16", "float16"),
        help="dtype the implementation is called in (default float32)",
    )
    group.addoption(
        OPT_DEVICE,
        action="store",
        default="cpu",
        dest="ropecheck_device",
        help="torch device for the inputs (default cpu)",
    )
    group.addoption(
        OPT_PROPERTIES,
        action="store",
        default=None,
        dest="ropecheck_properties",
        help="comma-separated properties to check (default: all)",
    )
    group.addoption(
        OPT_NO_ISOLATE,
        action="store_true",
        default=False,
        dest="ropecheck_no_isolate",
        help="run the implementation in the test process (default: a child process, so an exit or crash fails "
        "the test instead of ending the session)",
    )
    group.addoption(
        OPT_NO_BACKWARD,
        action="store_true",
        default=False,
        dest="ropecheck_no_backward",
        help="skip the backward checks (the gradient against the transpose of the rotation; run by default where "
        "the implementation supports autograd)",
    )
    group.addoption(
        OPT_COMPILE,
        action="store_true",
        default=False,
        dest="ropecheck_compile",
        help="check the implementation wrapped in torch.compile (inductor with a C++ compiler, else aot_eager)",
    )
    group.addoption(
        OPT_TIMEOUT,
        action="store",
        type=float,
        default=300.0,
        dest="ropecheck_timeout",
        help="seconds before a hanging implementation fails the test (default 300; 0: no limit)",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", _MARKER_HELP)
    names = _property_names(config)
    if names:  # a typo should stop the run at once, not fail every test that uses the fixture
        unknown = [n for n in names if n not in PROPERTIES]
        if unknown:
            raise pytest.UsageError(
                f"{OPT_PROPERTIES}: unknown properties {', '.join(unknown)}; choose from {', '.join(PROPERTIES)}"
            )


def _property_names(config: pytest.Config) -> list[str] | None:
    props = config.getoption("ropecheck_properties")
    return [p.strip() for p in props.split(",") if p.strip()] if props else None


def pytest_report_header(config: pytest.Config) -> list[str]:

    line = (
        f"ropecheck: {__version__}, seed={config.getoption('ropecheck_seed')}, "
        f"dtype={config.getoption('ropecheck_dtype')}, device={config.getoption('ropecheck_device')}"
    )
    return [line]


class RopeChecker:
    """What the ``ropecheck`` fixture returns: checks an implementation against a spec.

    Defaults come from the command line (``--ropecheck-*``), then the test's
    ``@pytest.mark.ropecheck(...)`` marker, then the arguments of :meth:`check`.

    Example:
        >>> # def test_rope(ropecheck): ropecheck.check(my_rope, spec=RopeSpec(head_dim=64))
    """

    def __init__(self, *, isolate: bool = True, timeout: float | None = 300.0, **defaults: Any) -> None:
        self.defaults = defaults
        self.isolate = isolate and available()
        self.timeout = timeout or None

    def _run(self, impl: Any, job: Callable[[Any], Any], *, compile: bool = False) -> Any:
        """``job(target)``: here, with the implementation's calls answered by a child process that holds it
        (its exit, crash, memory blow-up or hang fails the test), or in this process without isolation."""
        __tracebackhide__ = True
        if not self.isolate:
            return job(_compiled(impl) if compile else impl)
        deadline = None if not self.timeout else time.monotonic() + self.timeout
        fn, name = impl.fn, impl.name
        process = TargetProcess(lambda: (TargetHost(fn, name).answer, {"status": "ok"}), deadline=deadline,
                                timeout=self.timeout)  # fmt: skip
        try:
            process.start()
            remote = Implementation(None, impl.convention, impl.backend, name, host=ProcessHost(process))
            return job(_compiled(remote) if compile else remote)
        except ChildEnded as ended:
            outcome = ended.outcome
        except TargetMemoryError as exc:
            outcome = process.fail("memory", str(exc)).outcome
        finally:
            process.close()
        raise AssertionError(describe_outcome(outcome, "the implementation") + _tail(outcome.stderr))

    def _options(self, overrides: dict[str, Any]) -> dict[str, Any]:
        opts = dict(self.defaults)
        opts.update({k: v for k, v in overrides.items() if v is not None})
        if opts.get("spec") is None:
            raise UsageError("ropecheck.check needs spec=RopeSpec(...) (or @pytest.mark.ropecheck(spec=...))")
        opts.setdefault("properties", None)
        opts.setdefault("backward", True)
        opts.setdefault("compile", False)
        return opts

    def results(
        self,
        fn: Callable[..., Any],
        spec: RopeSpec | None = None,
        *,
        dtype: str | None = None,
        device: str | None = None,
        seed: int | None = None,
        properties: Sequence[str] | None = None,
        convention: str | None = None,
        backend: str | None = None,
    ) -> list[PropertyResult]:
        """Every property's :class:`~ropecheck.properties.PropertyResult`, without raising."""

        o = self._options({"spec": spec, "dtype": dtype, "device": device, "seed": seed, "properties": properties})
        impl = as_implementation(fn, convention=convention, backend=backend)

        def job(target: Any) -> list[PropertyResult]:
            if pair_kind(fn) is not None:
                return qk_results(target, o)
            return run_all(
                target, o["spec"], dtype=o["dtype"], device=o["device"], seed=o["seed"], properties=o.get("properties")
            )

        return cast("list[PropertyResult]", self._run(impl, job))

    def check(
        self,
        fn: Callable[..., Any],
        spec: RopeSpec | None = None,
        *,
        dtype: str | None = None,
        device: str | None = None,
        seed: int | None = None,
        properties: Sequence[str] | None = None,
        convention: str | None = None,
        backend: str | None = None,
    ) -> list[PropertyResult]:
        """Assert that ``fn`` has every RoPE property for ``spec``; the results if it does.

        The backward checks (``backward``, ``backward:double``) run too, unless properties are
        named, ``--ropecheck-no-backward`` is given or the marker says ``backward=False``;
        a target without autograd skips them. The results returned are the properties'.

        Raises:
            AssertionError: naming each failed property, with its evidence and context.
        """
        __tracebackhide__ = True

        o = self._options({"spec": spec, "dtype": dtype, "device": device, "seed": seed, "properties": properties})
        impl = as_implementation(fn, convention=convention, backend=backend)

        def job(target: Any) -> tuple[list[PropertyResult], str | None]:
            if pair_kind(fn) is not None:  # q and k in, q and k out: each side, then the pair
                results = qk_results(target, o)
                failed = [r for r in results if not r.passed]
                return results, failure_message(results) if failed else None
            results = run_all(
                target, o["spec"], dtype=o["dtype"], device=o["device"], seed=o["seed"], properties=o.get("properties")
            )
            grads = []  # the backward checks, where autograd is supported; asserted, not returned
            if o["backward"] and o.get("properties") is None:
                grads = backward_results(target, o["spec"], dtype=o["dtype"], device=o["device"], seed=o["seed"])
                grads = [r for r in grads if not r.passed]
            if all(r.passed for r in results + grads):
                return results, None
            header = verify_diagnosis(target, o["spec"], dtype=o["dtype"], device=o["device"], seed=o["seed"])
            return results, failure_message(results + grads, header=header)

        results, failure = self._run(impl, job, compile=bool(o["compile"]))
        if failure is not None:
            raise AssertionError(failure)
        return cast("list[PropertyResult]", results)


def qk_results(target: Implementation, o: dict[str, Any]) -> list[PropertyResult]:
    """A q/k target (:mod:`ropecheck.qk`): every property (and the backward) of the query side and of the key
    side, named ``query:...`` and ``key:...``, then the checks of the pair (``qk:independent:*``, ``qk:scores``)."""
    from dataclasses import replace

    from .properties import PropertyResult
    from .verify.model import VerifyReport
    from .verify.qk import SIDES, pair_checks, qk_views

    spec, dtype = o["spec"], o.get("dtype") or "float32"
    device, seed = o.get("device") or "cpu", o.get("seed") or 0
    _, views = qk_views(target, spec.head_dim)
    results: list[PropertyResult] = []
    for side in SIDES:
        found = run_all(views[side], spec, dtype=dtype, device=device, seed=seed, properties=o.get("properties"))
        if o["backward"] and o.get("properties") is None:
            found += backward_results(views[side], spec, dtype=dtype, device=device, seed=seed)
        results += [replace(r, name=f"{side}:{r.name}") for r in found]
    top = min(spec.max_position_embeddings or 4096, 1 << 17)
    pair = VerifyReport(target.name, spec, "given", (dtype,), device, top, "q/k", seed)
    pair_checks(views["pair"], spec, pair)
    for c in pair.checks:
        failed = c.status == "fail"
        results.append(
            PropertyResult(c.name, not failed, 0.0, 0.0, (0.0, 0.0), c.evidence, context={"dtype": c.dtype},
                           hint=c.hint, code=c.code, cause=c.cause, diagnosis=c.evidence if failed else "")
        )  # fmt: skip
    return results


def _compiled(impl: Any) -> Any:
    """``impl`` wrapped in ``torch.compile`` where it runs, with the backend that
    :func:`~ropecheck.verify.compiled.choose_backend` picks (dynamo's recompile limit raised, so no
    call silently runs eagerly)."""
    from .verify.compiled import choose_backend

    backend, _ = choose_backend()
    return impl.derive("compile", backend=backend)


def verify_diagnosis(impl: Any, spec: RopeSpec, *, dtype: str, device: str, seed: int) -> str:
    """The root cause ``ropecheck verify`` names for a failing implementation, in its words ('' if none).

    Run only when a property failed, so a test failure names the bug -- its finding code, the
    cause and the fix -- as precisely as the verifier does.
    """
    from .verify.run import verify  # heavy: the verifier and its renderers, imported when a check fails

    # identification reads the structure in float32; a low-precision dtype is then judged against the error model
    dtypes = ("float32", dtype) if dtype in ("bfloat16", "float16") else (dtype,)
    try:
        report = verify(impl, spec, dtypes=dtypes, device=device, seed=seed)
    except Exception:  # a diagnosis is a courtesy: the properties' own failure is the verdict
        return ""
    if report.conforms or not report.findings:
        return ""
    first = report.findings[0]
    lines = [f"Diagnosis [{first.label}] (as `ropecheck verify` names it): {first.message}"]
    if first.hint:
        lines.append(f"How to fix: {first.hint}")
    for other in report.findings[1:3]:
        lines.append(f"Also [{other.label}]: {other.message}")
    return "\n".join(lines)


def _tail(text: str) -> str:
    lines = [line for line in text.splitlines() if line.strip()]
    return "\n  its stderr ended with: " + " | ".join(lines[-3:]) if lines else ""


def _checker(item: pytest.Item) -> RopeChecker:
    config = item.config
    defaults: dict[str, Any] = {
        "spec": None,
        "dtype": config.getoption("ropecheck_dtype"),
        "device": config.getoption("ropecheck_device"),
        "seed": config.getoption("ropecheck_seed"),
        "properties": _property_names(config),
        "backward": not config.getoption("ropecheck_no_backward"),
        "compile": config.getoption("ropecheck_compile"),
    }
    marker = item.get_closest_marker(MARKER)
    if marker is not None:
        if marker.args:
            defaults["spec"] = marker.args[0]
        defaults.update({k: v for k, v in marker.kwargs.items() if k != "impl" and v is not None})
    return RopeChecker(
        isolate=not config.getoption("ropecheck_no_isolate"), timeout=config.getoption("ropecheck_timeout"), **defaults
    )


@pytest.fixture
def ropecheck(request: pytest.FixtureRequest) -> RopeChecker:
    """A :class:`RopeChecker`: ``ropecheck.check(fn, spec=...)`` asserts every RoPE property."""
    return _checker(request.node)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_call(item: pytest.Item) -> None:
    marker = item.get_closest_marker(MARKER)
    if marker is None or marker.kwargs.get("impl") is None:
        return
    __tracebackhide__ = True
    _checker(item).check(marker.kwargs["impl"])
