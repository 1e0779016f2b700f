"""Fuzzing the config reader: random JSON and mutated real configs, through the API and ``ropecheck spec``.

Whatever a config holds, ``RopeSpec.from_hf_config`` returns a valid spec or raises a
``RopeCheckError`` (``ConfigError``/``SpecError``) -- never a ``TypeError``,
``OverflowError``, ``RecursionError`` or ``ValueError`` from deep inside -- and
``ropecheck spec --hf-config`` exits 0 or 2, with one line on stderr and no traceback.
The inputs: random JSON values (nested dicts and lists of strings, numbers, bools, null),
dicts whose keys are the ones configs use with values drawn from the awkward ones (NaN,
infinities, 1e-320, ints past fp64 and past Python's int-to-text limit, bools, strings),
the real-style configs of ``tests/fixtures/configs`` with keys replaced or deleted, and
their text cut or with a stray byte. Derandomized (the ``ci`` profile), bounded; a generous
hang guard (not a speed goal) fails a run that does not finish.
"""

from __future__ import annotations

import json
import math
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fixtures import CONFIGS
from ropecheck import RopeSpec
from ropecheck.cli.main import main
from ropecheck.errors import RopeCheckError

HANG_GUARD = 60.0  # seconds for one config: far past anything valid (a spec of head_dim 65536 takes ~2 s)
FUZZ = settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)

# ------------------------------------------------------------------ values and keys configs use

AWKWARD = [0, -1, 1, 2, 7, 64, 128, 4096, 65538, 2**31, 2**32 + 1, 10**30, 10**400, -(10**400),
           0.0, -0.0, 0.5, 1.0, 1.5, 4.0, 1e-320, 1e30, 1e308, math.inf, -math.inf, math.nan,
           10000.0, 500000.0]  # fmt: skip
# the last index is an int past Python's int-to-text limit, built at draw time (nothing repr()s it up front)
AWKWARD_NUMBERS = st.integers(0, len(AWKWARD)).map(lambda i: AWKWARD[i] if i < len(AWKWARD) else 10**5000)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**40), 2**40),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=8),
    AWKWARD_NUMBERS,
    st.sampled_from(["yarn", "linear", "dynamic", "llama3", "longrope", "su", "default", "false", "true", "4", ""]),
)
CONFIG_KEYS = [
    "head_dim", "hidden_size", "num_attention_heads", "n_embd", "n_head", "rope_theta", "rotary_emb_base",
    "partial_rotary_factor", "rotary_pct", "rotary_dim", "max_position_embeddings", "n_positions",
    "original_max_position_embeddings", "model_type", "rope_scaling", "rope_parameters", "text_config",
]  # fmt: skip
SCALING_KEYS = [
    "rope_type", "type", "factor", "low_freq_factor", "high_freq_factor", "beta_fast", "beta_slow", "mscale",
    "mscale_all_dim", "attention_factor", "truncate", "short_factor", "long_factor", "original_max_position_embeddings",
    "rope_theta", "partial_rotary_factor", "full_attention", "sliding_attention",
]  # fmt: skip

JSON_VALUES = st.recursive(
    SCALARS,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(
            st.one_of(st.text(max_size=6), st.sampled_from(CONFIG_KEYS + SCALING_KEYS)), children, max_size=5
        ),
    ),
    max_leaves=20,
)
SCALING_DICTS = st.dictionaries(
    st.sampled_from(SCALING_KEYS), st.one_of(SCALARS, st.lists(SCALARS, max_size=4)), max_size=7
)
CONFIG_DICTS = st.dictionaries(
    st.sampled_from(CONFIG_KEYS),
    st.one_of(SCALARS, SCALING_DICTS, st.dictionaries(st.sampled_from(CONFIG_KEYS), SCALARS, max_size=4)),
    max_size=8,
)

# ------------------------------------------------------------------ mutations of the real-style configs

REAL = {p.name: json.loads(p.read_text()) for p in sorted(CONFIGS.glob("*.json"))}


def _paths(config: dict[str, Any], prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    out = []
    for key, value in config.items():
        out.append((*prefix, key))
        if isinstance(value, dict):
            out += _paths(value, (*prefix, key))
    return out


@st.composite
def mutated_configs(draw: st.DrawFn) -> dict[str, Any]:
    name = draw(st.sampled_from(sorted(REAL)))
    config = json.loads(json.dumps(REAL[name]))
    for _ in range(draw(st.integers(1, 3))):
        paths = _paths(config)
        if not paths:
            break
        path = draw(st.sampled_from(paths))
        parent = config
        for key in path[:-1]:
            parent = parent[key]
        if draw(st.booleans()):
            del parent[path[-1]]
        else:
            parent[path[-1]] = draw(st.one_of(SCALARS, SCALING_DICTS))
    return config


@st.composite
def config_texts(draw: st.DrawFn) -> bytes:
    """A config file's bytes: valid JSON of a mutated or random config, or its text cut or with a stray byte."""
    config = draw(st.one_of(mutated_configs(), CONFIG_DICTS))
    try:
        text = json.dumps(config).encode()
    except ValueError:  # an int past the int-to-text limit cannot be written; write what can be
        text = b'{"hidden_size": 1' + b"0" * 5000 + b', "num_attention_heads": 8}'
    how = draw(st.sampled_from(["as is", "as is", "cut", "stray byte"]))
    if how == "cut":
        return text[: draw(st.integers(0, len(text)))]
    if how == "stray byte":
        at = draw(st.integers(0, len(text)))
        return text[:at] + bytes([draw(st.integers(0, 255))]) + text[at:]
    return text


@pytest.fixture(autouse=True)
def hang_guard() -> Iterator[None]:
    """Stops a fuzz test (rather than hanging CI) if the whole run takes absurdly long."""

    def stop(signum: int, frame: object) -> None:
        pytest.fail(f"a fuzz test ran past its hang guard of {5 * HANG_GUARD:g} s")

    previous = signal.signal(signal.SIGALRM, stop)
    signal.alarm(int(5 * HANG_GUARD))
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def _api_holds(config: Any) -> None:
    t0 = time.monotonic()
    try:
        spec = RopeSpec.from_hf_config(config)
    except RopeCheckError as exc:
        assert "\n" not in str(exc)
    else:  # a spec that exists is usable: finite positive frequencies, a positive attention factor
        inv = spec.inv_freq()
        assert (inv > 0).all() and math.isfinite(float(inv.max())) and spec.attention_factor > 0
        spec.describe()
    assert time.monotonic() - t0 < HANG_GUARD


@FUZZ
@given(config=JSON_VALUES)
def test_random_json_through_the_api(config: Any) -> None:
    if isinstance(config, dict):
        _api_holds(config)
    else:  # a list, a string, a number: not a config
        with pytest.raises(RopeCheckError):
            RopeSpec.from_hf_config({"text_config": config, "head_dim": 8} if config is not None else [])


@FUZZ
@given(config=st.one_of(CONFIG_DICTS, mutated_configs()))
def test_config_dicts_and_mutated_real_configs_through_the_api(config: dict[str, Any]) -> None:
    _api_holds(config)


@FUZZ
@given(data=config_texts())
def test_config_files_through_the_cli(data: bytes, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "config.json"
    path.write_bytes(data)
    t0 = time.monotonic()
    code = main(["spec", "--hf-config", str(path), "--json", "-"])
    out, err = capsys.readouterr()
    assert code in (0, 2), (code, data[:200])
    assert "Traceback" not in out + err
    if code == 2:
        assert out == "" and len(err.strip().splitlines()) == 1, err
    else:
        assert err == "" and json.loads(out)["spec"]["head_dim"] >= 2
    assert time.monotonic() - t0 < HANG_GUARD
