"""The Coq certificates in proofs/coq and their checker, ropecheck.symbolic.coq.certify.

With coqc installed: every certificate is CERTIFIED (compiled, nothing admitted, no new
axiom, only the axioms of Coq's Reals behind every main theorem), and each planted fixture
in tests/fixtures/coq is rejected for its own reason. Without coqc those tests skip with
the install advice. The source readers (comment stripper, error parser, assumption parser,
statement extractor) are tested on text and need no coqc.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from ropecheck.errors import UsageError
from ropecheck.proofs import FAMILIES
from ropecheck.symbolic.coq.certify import (
    ALLOWED_AXIOMS,
    CERTIFICATES,
    UNCERTIFIED_FAMILIES,
    Status,
    allowed_axiom,
    certificate_files,
    certificate_index,
    certify,
    coq_statements,
    default_certificate_dir,
    find_coqc,
    missing_coqc_advice,
)
from ropecheck.symbolic.coq.source import (
    assumption_blocks,
    parse_assumptions,
    parse_coq_error,
    requires,
    scan_source,
    strip_comments,
)

ROOT = Path(__file__).resolve().parents[2]
COQ_DIR = ROOT / "proofs" / "coq"
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "coq"
BUILD_SUFFIXES = (".vo", ".vok", ".vos", ".glob", ".aux", ".cache")

needs_coqc = pytest.mark.skipif(find_coqc() is None, reason=missing_coqc_advice())


def _build_outputs(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(BUILD_SUFFIXES))


# --------------------------------------------------------------------------- with coqc


@needs_coqc
@pytest.mark.slow
def test_every_certificate_is_certified() -> None:
    before = _build_outputs(COQ_DIR)
    t0 = time.perf_counter()
    results = certify(certificate_files(COQ_DIR))
    total = time.perf_counter() - t0
    print(f"\ncoqc {results[0].coqc_version}: {len(results)} certificates in {total:.1f} s (wall)")
    for r in results:
        print(f"  {r.file.name:22} {r.status} {r.seconds:5.1f} s  {', '.join(r.theorems)}")
    assert [r.file.name for r in results] == list(CERTIFICATES)
    for r in results:
        assert r.status is Status.CERTIFIED, (r.file.name, r.reasons)
        assert r.reasons == [] and r.error_line is None
        assert scan_source(r.file.read_text(encoding="utf-8")) == []  # nothing admitted, no new axiom
        assert set(CERTIFICATES[r.file.name].theorems) <= set(r.theorems)
        for theorem, listed in r.assumptions.items():
            assert all(allowed_axiom(a) for a in listed), (theorem, listed)
    used = {a for r in results for listed in r.assumptions.values() for a in listed}
    assert used and all(allowed_axiom(a) for a in used)
    assert _build_outputs(COQ_DIR) == before  # compiled in a temporary directory only


@needs_coqc
def test_false_lemma_fails_at_its_marked_line() -> None:
    source = FIXTURES / "false_lemma.v"
    marked = next(i for i, line in enumerate(source.read_text().splitlines(), 1) if "coqc fails here" in line)
    (r,) = certify([source])
    assert r.status is Status.FAILED
    assert r.error_file is not None and Path(r.error_file).name == "false_lemma.v"
    assert r.error_line == marked
    assert r.error_message and "ring" in r.error_message
    assert _build_outputs(FIXTURES) == []


@needs_coqc
@pytest.mark.parametrize(
    ("fixture", "source_reason", "assumption"),
    [("admitted.v", "Admitted", "rotation_compose"), ("extra_axiom.v", "new Axiom rotations_add", "rotations_add")],
)
def test_compiling_fixture_is_not_certified(fixture: str, source_reason: str, assumption: str) -> None:
    (r,) = certify([FIXTURES / fixture])
    assert r.status is Status.FAILED and r.error_line is None  # coqc accepted it
    assert any(source_reason in reason for reason in r.reasons), r.reasons
    assert assumption in r.assumptions["rotation_compose"]
    assert any(f"relies on {assumption}" in reason for reason in r.reasons), r.reasons


@needs_coqc
def test_import_of_a_failed_file_is_not_checked(tmp_path: Path) -> None:
    (tmp_path / "rotation_group.v").write_text("Definition broken := .\n")
    (tmp_path / "user.v").write_text("From RopeCheck Require Import rotation_group.\n")
    first, second = certify([tmp_path / "user.v"])
    assert (first.file.name, first.status, first.error_line) == ("rotation_group.v", Status.FAILED, 1)
    assert second.status is Status.NOT_CHECKED and "rotation_group.v" in second.reasons[0]


# --------------------------------------------------------------------------- without coqc


def test_missing_coqc_gives_not_checked_with_advice() -> None:
    results = certify(certificate_files(COQ_DIR), coqc="/nonexistent/coqc")
    assert [r.status for r in results] == [Status.NOT_CHECKED] * len(CERTIFICATES)
    assert all("apt-get install coq" in r.reasons[0] and r.coqc_version is None for r in results)


def test_certificate_table_matches_the_files() -> None:
    assert default_certificate_dir() == COQ_DIR
    assert sorted(p.name for p in COQ_DIR.glob("*.v")) == sorted(CERTIFICATES)
    assert {f for c in CERTIFICATES.values() for f in c.families} | set(UNCERTIFIED_FAMILIES) == set(FAMILIES)
    compiled: list[str] = []
    for path in certificate_files(COQ_DIR):
        text = path.read_text(encoding="utf-8")
        cert = CERTIFICATES[path.name]
        assert sorted(f"{m}.v" for m in requires(text, "RopeCheck")) == sorted(cert.requires)
        assert set(cert.requires) <= set(compiled)  # the table's order is a compile order
        compiled.append(path.name)
        for theorem in cert.theorems:
            assert f"Print Assumptions {theorem}." in text
    for entry in certificate_index(COQ_DIR):
        for theorem in entry["theorems"]:  # type: ignore[attr-defined]
            assert theorem["coq_statement"].startswith(f"Theorem {theorem['name']} ")
            assert theorem["sympy_theorem"]


def test_main_statements_are_general() -> None:
    relative = coq_statements(COQ_DIR / "relative_position.v")["rope_relative_position"]
    assert relative.startswith("Theorem rope_relative_position : forall (thetas : list R) (m n : Z)")
    assert "dot q (rope thetas (n - m) k)" in relative
    layouts = coq_statements(COQ_DIR / "layouts.v", ["half_split_eq_permuted_interleaved"])
    assert "deinterleave (rope thetas m (interleave x))" in layouts["half_split_eq_permuted_interleaved"]


def test_certificate_files_errors(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="no Coq certificate folder"):
        certificate_files(tmp_path / "absent")
    with pytest.raises(UsageError, match="lacks the certificates"):
        certificate_files(tmp_path)


def test_allowed_axioms() -> None:
    assert allowed_axiom("ClassicalDedekindReals.sig_not_dec")
    assert allowed_axiom("Coq.Logic.Classical_Prop.classic")
    assert not allowed_axiom("classic")  # a bare name could be anything
    assert not allowed_axiom("rotations_add") and not allowed_axiom("Foo.sig_not_dec")
    assert len(ALLOWED_AXIOMS) == 4


def test_strip_comments_nested_and_strings() -> None:
    text = 'A (* x (* y *) z *) B "(* s *)" (* "*)" *) C\n(* a\nb *)D'
    out = strip_comments(text)
    assert len(out) == len(text) and out.count("\n") == text.count("\n")
    assert out.split() == ["A", "B", '"(*', "s", '*)"', "C", "D"]
    assert strip_comments(text, strings=True).split() == ["A", "B", '"', '"', "C", "D"]
    assert strip_comments("(* scores_d*) X *)").split() == ["X", "*)"]  # as Coq reads it


def test_scan_source_flags() -> None:
    assert scan_source("(* Admitted. admit. Axiom a : False. *) Lemma x : True. Proof. exact I. Qed.") == []
    assert scan_source('Goal True. idtac "Admitted". exact I. Qed. Definition my_admit := 0.') == []
    assert scan_source("Lemma x : False.\nProof.\n  admit.\nAdmitted.") == [
        "line 3: admit (a goal left unproved)",
        "line 4: Admitted (a goal left unproved)",
    ]
    assert scan_source("Section S.\nVariable x : nat.\nHypothesis h : x = 0.\nEnd S.") == []
    assert scan_source("Variable x : nat.") == ["line 1: Variable outside a section declares an axiom"]
    assert scan_source("Section S.\n#[local] Axiom f : False.\nEnd S.") == ["line 2: declares a new Axiom f"]
    assert scan_source("Unset Guard Checking.") == ["line 1: switches off a kernel check"]


def test_parse_coq_error() -> None:
    stderr = 'File "./false_lemma.v", line 23, characters 11-15:\nError: Tactic failure: not a valid ring equation.\n\n'
    assert parse_coq_error(stderr) == ("./false_lemma.v", 23, "Tactic failure: not a valid ring equation.")
    multi = 'File "/t/x.v", line 7, characters 2-9:\nError:\nIn environment\nx : R\nUnable to unify "x" with "y".\n'
    assert parse_coq_error(multi) == ("/t/x.v", 7, 'In environment\nx : R\nUnable to unify "x" with "y".')
    assert parse_coq_error("Warning: nothing wrong\n") is None


def test_assumptions_attributed_by_byte_range() -> None:
    source = b"Lemma a : True. Proof. exact I. Qed.\nPrint Assumptions a.\nPrint Assumptions b.\n"
    first, second = source.index(b"Print Assumptions a."), source.index(b"Print Assumptions b.")
    stdout = (
        "Chars 0 - 15 [Lemma~a~:~True.] 0. secs (0.u,0.s)\n"
        "Closed under the global context\n"
        f"Chars {first} - {first + 20} [Print~Assumptions~a.] 0.1 secs (0.1u,0.s)\n"
        "Axioms:\nClassicalDedekindReals.sig_forall_dec\n  : forall P : nat -> Prop,\n    P 0\n"
        "Classical_Prop.classic : forall P : Prop, P \\/ ~ P\n"
        f"Chars {second} - {second + 20} [Print~Assumptions~b.] 0.1 secs (0.1u,0.s)\n"
    )
    blocks = assumption_blocks(stdout, source)
    assert list(blocks) == ["a", "b"]
    assert parse_assumptions(blocks["a"]) == []
    assert parse_assumptions(blocks["b"]) == ["ClassicalDedekindReals.sig_forall_dec", "Classical_Prop.classic"]
    assert parse_assumptions("Section Variables:\nx : nat") == ["Section Variables: x : nat"]
    assert parse_assumptions("") == ["output: nothing printed"]


@needs_coqc
def test_prove_certify_shows_certified_beside_proved(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    from ropecheck.cli import main

    one = str(COQ_DIR / "rotation_group.v")
    assert main(["prove", "rotation_2d", "--certify", "--certificates", one, "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "CERTIFIED   rotation_group.v" in out
    assert "rotation_2d                  PROVED (SymPy); CERTIFIED by rotation_group.v" in out
    page = (tmp_path / "rotation_2d.md").read_text()
    assert "## Coq certificate" in page and "Theorem rotation_compose" in page
    assert "| CERTIFIED |" in (tmp_path / "certificates.md").read_text()


@needs_coqc
def test_prove_certify_fails_on_a_planted_false_lemma_with_file_and_line(capsys: pytest.CaptureFixture[str]) -> None:
    from ropecheck.cli import main

    assert main(["prove", "--certify", "--certificates", str(FIXTURES / "false_lemma.v"), "--no-write"]) == 1
    assert "false_lemma.v:23:" in capsys.readouterr().out


def test_prove_certify_without_coqc_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from ropecheck.cli import main
    from ropecheck.cli import prove as prove_command

    monkeypatch.setattr(prove_command, "find_coqc", lambda: None)
    assert main(["prove", "--certify", "--no-write"]) == 2
    assert "apt-get install coq" in capsys.readouterr().err


@needs_coqc
def test_the_abel_certificate_fails_without_its_minus_sign(tmp_path: Path) -> None:
    """The certificate's identity with the sign people drop (sum h_i e_i = +sum S_{i+1}(h_{i+1} - h_i)) fails."""
    text = (COQ_DIR / "long_term_decay.v").read_text(encoding="utf-8")
    broken = text.replace(
        "= copp (csum (fun i => cmul (partial e (S i))", "= (csum (fun i => cmul (partial e (S i))", 1
    )
    assert broken != text
    (tmp_path / "long_term_decay.v").write_text(broken, encoding="utf-8")
    (r,) = certify([tmp_path / "long_term_decay.v"])
    assert r.status is Status.FAILED
    proof = broken.index("Theorem abel_summation")
    first, last = (broken[:proof].count("\n") + 1, broken[: broken.index("Qed.", proof)].count("\n") + 1)
    assert r.error_line is not None and first <= r.error_line <= last
