"""The structural check of complex buffers under ``module.to(dtype)`` (ropecheck.survey.buffers)."""

from __future__ import annotations

import pytest
import torch

from ropecheck.survey.buffers import COMPLEX_BUFFER_CAST, complex_buffer_findings

#: the modules that survey transformers run on one xdist worker (``--dist loadgroup``): the first call of
#: ``discover()`` in a process imports every model family (most of a survey test's time), later calls reuse it
pytestmark = pytest.mark.xdist_group("transformers-survey")


DTYPES = ("float32", "bfloat16", "float16")


def _angles() -> torch.Tensor:
    return torch.arange(6, dtype=torch.float32)[:, None] * torch.tensor([1.0, 0.1, 0.01])


class ComplexTable(torch.nn.Module):
    """A freqs_cis table kept as a complex buffer, as Llama 4's vision rotary keeps it (broken under .to)."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("freqs_cis", torch.polar(torch.ones(6, 3), _angles()), persistent=False)


class RealTables(torch.nn.Module):
    """The same table as two real buffers, cos and sin: .to(dtype) rounds them, nothing is lost."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("cos", _angles().cos(), persistent=False)
        self.register_buffer("sin", _angles().sin(), persistent=False)


class ComplexAtZero(torch.nn.Module):
    """A complex buffer whose imaginary part is zero everywhere: nothing to lose."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("freqs_cis", torch.ones(4, dtype=torch.complex64), persistent=False)


def test_a_complex_buffer_made_real_is_a_finding_in_every_dtype() -> None:
    found = complex_buffer_findings(ComplexTable(), DTYPES)
    assert [(cell, label) for cell, label, _ in found] == [(f"cast/{dt}", COMPLEX_BUFFER_CAST) for dt in DTYPES]
    message = found[1][2]
    assert "`freqs_cis` (6, 3)" in message and "real bfloat16" in message and "up to 0.959" in message


def test_real_buffers_and_a_complex_dtype_are_no_finding() -> None:
    assert complex_buffer_findings(RealTables(), DTYPES) == []
    assert complex_buffer_findings(ComplexAtZero(), DTYPES) == []
    assert complex_buffer_findings(ComplexTable(), ("complex128",)) == []  # the imaginary part is kept


def test_the_check_casts_a_copy() -> None:
    module = ComplexTable()
    complex_buffer_findings(module, DTYPES)
    assert module.freqs_cis.is_complex()


def test_llama4_vision_rotary_loses_its_sin_under_a_cast() -> None:
    """The class driven in the fp32 mode only (its cast would be a real table): its row carries the structural
    finding for the cast, its text sibling (driven both ways) none."""
    pytest.importorskip("transformers")
    from ropecheck.survey.discover import discover
    from ropecheck.survey.run import run_units

    family = discover()["llama4"]
    rows = {r.name: r for r in run_units(family, dtypes=("bfloat16",), max_position=64)}
    vision = rows["llama4/Llama4VisionRotaryEmbedding"]
    assert vision.status == "driven" and {v.mode for v in vision.verdicts} == {"fp32"}
    assert [(cell, label) for cell, label, _ in vision.structural] == [("cast/bfloat16", COMPLEX_BUFFER_CAST)]
    assert "freqs_ci" in vision.structural[0][2] and "vision_config" in vision.structural[0][2]
    assert rows["llama4"].structural == []
