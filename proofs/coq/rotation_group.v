(* ropecheck certificate: the 2x2 rotation group and relative position in 2-D.

   Main theorems (all over the reals, positions m n are integers):
     rotation_compose            R(a) R(b) = R(a + b)
     rotation_transpose_compose  R(a)^T R(b) = R(b - a)
     rotation_orthogonal         R(a)^T R(a) = I
     rotation_zero               R(0) = I
     rope_relative_position_2d   <R(m theta) q, R(n theta) k> = q^T R((n - m) theta) k
   Lemma (used by rotation_transpose_compose, so its assumptions are printed with it):
     rotation_transpose          R(a)^T = R(-a)

   Mirrors the SymPy family "relative_position": theorem rotation_2d (transpose, compose,
   zero, orthogonal) and the matrix steps of relative_position_2d. The complex form of
   relative_position_2d is certified in forms.v (complex_score_relative).

   Compile first (the other certificates import it):
     coqc -Q proofs/coq RopeCheck proofs/coq/rotation_group.v *)

From Coq Require Import Reals ZArith.
Open Scope R_scope.

(* A vector of R^2 and a 2x2 real matrix. *)
Record vec2 := Vec2 { v0 : R; v1 : R }.
Record mat2 := Mat2 { a00 : R; a01 : R; a10 : R; a11 : R }.

(* The rotation by angle a: [[cos a, -sin a], [sin a, cos a]]. *)
Definition rot (a : R) : mat2 := Mat2 (cos a) (- sin a) (sin a) (cos a).

Definition mmul (A B : mat2) : mat2 :=
  Mat2 (a00 A * a00 B + a01 A * a10 B) (a00 A * a01 B + a01 A * a11 B)
       (a10 A * a00 B + a11 A * a10 B) (a10 A * a01 B + a11 A * a11 B).

Definition mtr (A : mat2) : mat2 := Mat2 (a00 A) (a10 A) (a01 A) (a11 A).

Definition mid : mat2 := Mat2 1 0 0 1.

Definition mvmul (A : mat2) (x : vec2) : vec2 :=
  Vec2 (a00 A * v0 x + a01 A * v1 x) (a10 A * v0 x + a11 A * v1 x).

(* The inner product of R^2. *)
Definition dot2 (x y : vec2) : R := v0 x * v0 y + v1 x * v1 y.

Lemma mvmul_dot2 : forall (A : mat2) (x y : vec2),
  dot2 (mvmul A x) y = dot2 x (mvmul (mtr A) y).
Proof. intros [p q r s] [x0 x1] [y0 y1]. unfold dot2, mvmul, mtr; simpl. ring. Qed.

Lemma mvmul_mmul : forall (A B : mat2) (x : vec2),
  mvmul A (mvmul B x) = mvmul (mmul A B) x.
Proof. intros [p q r s] [p' q' r' s'] [x0 x1]. unfold mvmul, mmul; simpl. f_equal; ring. Qed.

Theorem rotation_compose : forall a b : R, mmul (rot a) (rot b) = rot (a + b).
Proof.
  intros a b. unfold mmul, rot; simpl. rewrite cos_plus, sin_plus. f_equal; ring.
Qed.

Theorem rotation_transpose : forall a : R, mtr (rot a) = rot (- a).
Proof.
  intros a. unfold mtr, rot; simpl. rewrite cos_neg, sin_neg. f_equal; ring.
Qed.

Theorem rotation_transpose_compose : forall a b : R, mmul (mtr (rot a)) (rot b) = rot (b - a).
Proof.
  intros a b. rewrite rotation_transpose, rotation_compose. f_equal. ring.
Qed.

Theorem rotation_zero : rot 0 = mid.
Proof. unfold rot, mid. rewrite cos_0, sin_0. f_equal; ring. Qed.

Theorem rotation_orthogonal : forall a : R, mmul (mtr (rot a)) (rot a) = mid.
Proof.
  intros a. rewrite rotation_transpose_compose. replace (a - a) with 0 by ring.
  apply rotation_zero.
Qed.

(* Relative position in 2-D: for every real theta, integer positions m n and q k in R^2,
   the score of the query rotated to m and the key rotated to n depends on m, n only
   through n - m. *)
Theorem rope_relative_position_2d : forall (theta : R) (m n : Z) (q k : vec2),
  dot2 (mvmul (rot (IZR m * theta)) q) (mvmul (rot (IZR n * theta)) k)
  = dot2 q (mvmul (rot (IZR (n - m) * theta)) k).
Proof.
  intros theta m n q k.
  rewrite mvmul_dot2, mvmul_mmul, rotation_transpose_compose, minus_IZR.
  do 3 f_equal. ring.
Qed.

Print Assumptions rotation_compose.
Print Assumptions rotation_transpose_compose.
Print Assumptions rotation_orthogonal.
Print Assumptions rotation_zero.
Print Assumptions rope_relative_position_2d.
