"""The ``ropecheck`` pytest plugin, tested in fresh temporary projects with ``pytester``.

A third-party project writes its own RoPE and checks it with the fixture, the marker and
the ``--ropecheck-*`` options; a correct implementation passes, a wrong one fails with an
``assert_close``-like message and the RoPE context.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

USER_ROPE = '''
import pytest
import torch
from ropecheck import RopeSpec

SPEC = RopeSpec(head_dim=8, base=10000.0)


def my_rope(x, positions, sign=1.0):
    """The user's own half-split RoPE: (batch, seq, heads, head_dim), positions (batch, seq)."""
    d = x.shape[-1]
    inv_freq = 10000.0 ** (-torch.arange(0, d, 2, dtype=torch.float32) / d)
    ang = positions.to(torch.float32)[..., None] * inv_freq
    cos = torch.cat([ang.cos(), ang.cos()], -1)[:, :, None].to(x.dtype)
    sin = sign * torch.cat([ang.sin(), ang.sin()], -1)[:, :, None].to(x.dtype)
    rot = torch.cat([-x[..., d // 2:], x[..., : d // 2]], -1)
    return x * cos + rot * sin


def wrong_rope(x, positions):
    return my_rope(x, positions, sign=-1.0)
'''


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makepyfile(user_rope=USER_ROPE)
    return pytester


def test_fixture_passes_a_correct_rope_and_explains_a_wrong_one(project: pytest.Pytester) -> None:
    project.makepyfile(
        test_user="""
        from user_rope import SPEC, my_rope, wrong_rope

        def test_my_rope(ropecheck):
            ropecheck.check(my_rope, spec=SPEC)

        def test_wrong_rope(ropecheck):
            ropecheck.check(wrong_rope, spec=SPEC)
        """
    )
    result = project.runpytest("-p", "ropecheck", "--strict-markers")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "ropecheck: *, seed=0, dtype=float32, device=cpu",
            "*AssertionError: RoPE properties failed (2 of 12): matches_reference, layout_equivalence",
            "*Diagnosis [[]direction[]] (as `ropecheck verify` names it): the rotation is reversed*",
            "*How to fix: *--direction -1*",
            "*matches_reference: the output and the fp64 reference are not close!",
            "*Mismatched elements: * / *",
            "*Greatest absolute difference: * at index (*) (up to * allowed)",
            "*Greatest relative difference: * at index (*) (up to * allowed)",
            "*RoPE context: position *, dimension pair (*, *), head *, batch row *, dtype float32, layout half",
        ]
    )
    assert "def check(" not in result.stdout.str()  # the plugin's frames are hidden


BUGS = """
import torch
from ropecheck import RopeSpec

SPEC = RopeSpec(head_dim=64)


def _rope(x, positions, *, ignore=False, input_dtype=False):
    d = x.shape[-1]
    inv = 10000.0 ** (-torch.arange(0, d, 2, dtype=torch.float32) / d)
    pos = torch.arange(x.shape[1])[None].expand_as(positions) if ignore else positions
    dt = x.dtype if input_dtype else torch.float32
    ang = pos.to(dt)[..., None] * inv.to(dt)
    ang = torch.cat([ang, ang], -1)[:, :, None].float()
    rot = torch.cat([-x[..., d // 2:], x[..., : d // 2]], -1)
    return x * ang.cos().to(x.dtype) + rot * ang.sin().to(x.dtype)


def ignores_positions(x, positions):
    return _rope(x, positions, ignore=True)


def angles_in_input_dtype(x, positions):
    return _rope(x, positions, input_dtype=True)


def test_ignores_positions(ropecheck):
    ropecheck.check(ignores_positions, spec=SPEC)


def test_angles_in_bf16(ropecheck):
    ropecheck.check(angles_in_input_dtype, spec=SPEC, dtype="bfloat16")
"""


def test_failures_name_the_bug_with_the_verifiers_codes_and_sentences(pytester: pytest.Pytester) -> None:
    """Two different bugs, two different diagnoses: each the finding code and sentence `ropecheck verify` gives."""
    pytester.makepyfile(test_bugs=BUGS)
    result = pytester.runpytest("-p", "ropecheck")
    result.assert_outcomes(failed=2)
    out = result.stdout.str()
    assert (
        "Diagnosis [positions/positions_ignored] (as `ropecheck verify` names it): the positions given are ignored"
        in out
    )
    assert "How to fix: use the positions passed in, not arange(seq_len)" in out
    assert (
        "Diagnosis [precision/angles_low_precision] (as `ropecheck verify` names it): the angles m*theta_i are " in out
    )
    assert "formed in bfloat16" in out
    assert "check the pairing" not in out  # the layout hint is for a layout bug, and it is not one here


@pytest.mark.slow
def test_works_without_autoload_in_a_fresh_process(project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    project.makepyfile(
        test_user="""
        from user_rope import SPEC, my_rope

        def test_my_rope(ropecheck):
            results = ropecheck.check(my_rope, spec=SPEC, dtype="bfloat16")
            assert len(results) == 12
        """
    )
    result = project.runpytest_subprocess("-p", "ropecheck", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)


def test_marker_supplies_the_spec_and_can_declare_the_implementation(project: pytest.Pytester) -> None:
    project.makepyfile(
        test_user="""
        import pytest
        from user_rope import SPEC, my_rope, wrong_rope

        @pytest.mark.ropecheck(spec=SPEC, dtype="float16")
        def test_spec_from_marker(ropecheck):
            ropecheck.check(my_rope)

        @pytest.mark.ropecheck(spec=SPEC, impl=my_rope)
        def test_declared_good():
            pass

        @pytest.mark.ropecheck(spec=SPEC, impl=wrong_rope)
        def test_declared_wrong():
            pass

        @pytest.mark.ropecheck(SPEC)
        def test_spec_as_the_marker_argument(ropecheck):
            assert ropecheck.defaults["spec"] is SPEC
            ropecheck.check(my_rope)
        """
    )
    result = project.runpytest("-p", "ropecheck", "--strict-markers")
    result.assert_outcomes(passed=3, failed=1)
    result.stdout.fnmatch_lines(["*test_declared_wrong*", "*matches_reference: * are not close!*"])


def test_options_select_dtype_seed_and_properties(project: pytest.Pytester) -> None:
    project.makepyfile(
        test_user="""
        from user_rope import SPEC, wrong_rope

        def test_wrong_but_norm_preserving(ropecheck):
            results = ropecheck.check(wrong_rope, spec=SPEC)
            assert [r.name for r in results] == ["norm_preservation", "relative_position"]
            assert ropecheck.defaults["dtype"] == "float16" and ropecheck.defaults["seed"] == 7
        """
    )
    result = project.runpytest(
        "-p",
        "ropecheck",
        "--ropecheck-dtype=float16",
        "--ropecheck-seed=7",
        "--ropecheck-properties=norm_preservation,relative_position",
    )
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["ropecheck: *, seed=7, dtype=float16, device=cpu"])


def test_unknown_property_stops_the_run(project: pytest.Pytester) -> None:
    project.makepyfile(test_user="def test_nothing(ropecheck):\n    pass\n")
    result = project.runpytest("-p", "ropecheck", "--ropecheck-properties=norm_preservation,norm_preserved")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--ropecheck-properties: unknown properties norm_preserved; choose from *"])


def test_missing_spec_is_a_clear_error(project: pytest.Pytester) -> None:
    project.makepyfile(
        test_user="""
        from user_rope import my_rope

        def test_no_spec(ropecheck):
            ropecheck.check(my_rope)
        """
    )
    result = project.runpytest("-p", "ropecheck")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*UsageError: ropecheck.check needs spec=RopeSpec(...)*"])


def test_help_lists_the_option_group(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("-p", "ropecheck", "--help")
    result.stdout.fnmatch_lines(
        [
            "ropecheck: RoPE correctness checks:",
            "*--ropecheck-seed=*",
            "*--ropecheck-dtype=*",
            "*--ropecheck-device=*",
            "*--ropecheck-properties=*",
        ]
    )


def test_marker_is_registered(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("-p", "ropecheck", "--markers")
    result.stdout.fnmatch_lines(["@pytest.mark.ropecheck(spec=None, impl=None, *"])


def test_an_implementation_that_ends_the_process_fails_its_test_not_the_session(project: pytest.Pytester) -> None:
    """``os._exit(0)`` or a segfault inside a RoPE fails that test; the session goes on and reports it."""
    project.makepyfile(
        test_user="""
        import ctypes
        import os
        import sys

        from user_rope import SPEC, my_rope

        def exits(x, positions):
            os._exit(0)

        def crashes(x, positions):
            ctypes.string_at(0)

        def sys_exits(x, positions):
            sys.exit(0)

        def test_exits(ropecheck):
            ropecheck.check(exits, spec=SPEC)

        def test_crashes(ropecheck):
            ropecheck.check(crashes, spec=SPEC)

        def test_sys_exits(ropecheck):
            ropecheck.check(sys_exits, spec=SPEC)

        def test_still_runs(ropecheck):
            ropecheck.check(my_rope, spec=SPEC)
        """
    )
    result = project.runpytest("-p", "ropecheck")
    result.assert_outcomes(passed=1, failed=3)
    result.stdout.fnmatch_lines(
        [
            "*AssertionError: the implementation ended the process (os._exit(0), exit code 0) instead of returning*",
            "*AssertionError: the implementation crashed the process with SIGSEGV (a segmentation fault)*",
            "*AssertionError: the implementation ended the process (SystemExit(0), exit code 0)*",
        ]
    )


def test_a_wrong_backward_fails_the_check_and_no_backward_skips_it(project: pytest.Pytester) -> None:
    mutant = Path(__file__).resolve().parents[1] / "fixtures" / "backward" / "mutants" / "backward_rotates_forward.py"
    project.makepyfile(
        test_user=f"""
        import importlib.util
        from ropecheck import RopeSpec
        from ropecheck.hf import scaling_from_dict

        spec_ = importlib.util.spec_from_file_location("mutant", {str(mutant)!r})
        mod = importlib.util.module_from_spec(spec_)
        spec_.loader.exec_module(mod)
        fields = dict(mod.SPEC)
        SPEC = RopeSpec(scaling=scaling_from_dict(fields.pop("rope_scaling")), **fields)

        def test_backward(ropecheck):
            ropecheck.check(mod.rope, spec=SPEC)
        """
    )
    result = project.runpytest("-p", "ropecheck", "--ropecheck-no-isolate")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*backward/backward_direction*"])
    result = project.runpytest("-p", "ropecheck", "--ropecheck-no-isolate", "--ropecheck-no-backward")
    result.assert_outcomes(passed=1)
