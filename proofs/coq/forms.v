(* ropecheck certificate: the matrix, complex and elementwise forms of RoPE agree.

   A complex number a + ib is the pair (a, b) with complex multiplication; e^(i phi) is
   (cos phi, sin phi). For every list of frequencies (every even d), every integer
   position m and every vector x, the main theorems:

     complex_form_eq_matrix      pairwise (x_(2i) + i x_(2i+1)) e^(i m theta_i) = R_(Theta,m) x
     elementwise_form_eq_matrix  x * cos + rotate(x) * sin = R_(Theta,m) x, where
                                 rotate(x) maps each pair (a, b) to (-b, a) and cos, sin
                                 repeat cos(m theta_i), sin(m theta_i) over pair i
     complex_score_relative      <f(q,m), f(k,n)> = Re[q conj(k) e^(i (m - n) theta)] for
                                 f(x, m) = x e^(i m theta) (the complex form of the 2-D score)
   Lemma (used by complex_form_eq_matrix):
     complex_pair_eq_matrix      (a + ib) e^(i phi) = R(phi) (a, b), one pair

   Mirrors the SymPy family "forms" (theorem forms_agree: pair_*_elementwise_matrix, where the
   elementwise form is defined on the whole vector as here, pair_*_complex_matrix and the
   layout steps; the half-split layout is in layouts.v) and the
   complex_form step of relative_position_2d (family "relative_position").

   Compile after rotation_group.v and relative_position.v:
     coqc -Q proofs/coq RopeCheck proofs/coq/forms.v *)

From Coq Require Import Reals Lra Lia ZArith List.
From RopeCheck Require Import rotation_group relative_position.
Import ListNotations.
Open Scope R_scope.

(* Complex numbers as pairs of reals. *)
Definition cmul (z w : vec2) : vec2 :=
  Vec2 (v0 z * v0 w - v1 z * v1 w) (v0 z * v1 w + v1 z * v0 w).

Definition cconj (z : vec2) : vec2 := Vec2 (v0 z) (- v1 z).

Definition cexp (phi : R) : vec2 := Vec2 (cos phi) (sin phi).

(* The complex form: pair i is multiplied by e^(i m theta_i). *)
Fixpoint rope_complex_pairs (thetas : list R) (m : Z) (x : list vec2) : list vec2 :=
  match thetas, x with
  | t :: ts, p :: ps => cmul p (cexp (IZR m * t)) :: rope_complex_pairs ts m ps
  | _, _ => []
  end.

Definition rope_complex (thetas : list R) (m : Z) (x : list R) : list R :=
  flatten (rope_complex_pairs thetas m (pairs x)).

(* The elementwise form x * cos + rotate(x) * sin (interleaved layout). *)
Fixpoint vmul (x y : list R) : list R :=
  match x, y with
  | a :: r, b :: s => a * b :: vmul r s
  | _, _ => []
  end.

Fixpoint vadd (x y : list R) : list R :=
  match x, y with
  | a :: r, b :: s => a + b :: vadd r s
  | _, _ => []
  end.

Fixpoint rotate_pairs (x : list R) : list R :=
  match x with
  | a :: b :: r => - b :: a :: rotate_pairs r
  | _ => []
  end.

Fixpoint cos_pairs (thetas : list R) (m : Z) : list R :=
  match thetas with
  | [] => []
  | t :: ts => cos (IZR m * t) :: cos (IZR m * t) :: cos_pairs ts m
  end.

Fixpoint sin_pairs (thetas : list R) (m : Z) : list R :=
  match thetas with
  | [] => []
  | t :: ts => sin (IZR m * t) :: sin (IZR m * t) :: sin_pairs ts m
  end.

Definition rope_elementwise (thetas : list R) (m : Z) (x : list R) : list R :=
  vadd (vmul x (cos_pairs thetas m)) (vmul (rotate_pairs x) (sin_pairs thetas m)).

Theorem complex_pair_eq_matrix : forall (phi : R) (p : vec2),
  cmul p (cexp phi) = mvmul (rot phi) p.
Proof. intros phi [a b]. unfold cmul, cexp, mvmul, rot; simpl. f_equal; ring. Qed.

Theorem complex_form_eq_matrix : forall (thetas : list R) (m : Z) (x : list R),
  rope_complex thetas m x = rope thetas m x.
Proof.
  intros thetas m x. unfold rope_complex, rope. f_equal.
  generalize (pairs x) as ps. induction thetas as [|t ts IH]; intros [|p ps]; simpl; try reflexivity.
  now rewrite complex_pair_eq_matrix, IH.
Qed.

Theorem elementwise_form_eq_matrix : forall (thetas : list R) (m : Z) (x : list R),
  length x = (2 * length thetas)%nat ->
  rope_elementwise thetas m x = rope thetas m x.
Proof.
  unfold rope_elementwise, rope.
  induction thetas as [|t ts IH]; intros m x Hx; simpl in Hx.
  - destruct x; [reflexivity | discriminate].
  - destruct x as [|a [|b r]]; simpl in Hx; try lia. simpl.
    rewrite IH by lia. unfold mvmul, rot; simpl. f_equal; [|f_equal]; ring.
Qed.

(* The complex form of the 2-D score: the real inner product of f(q,m) = q e^(i m theta)
   and f(k,n) = k e^(i n theta) is Re[q conj(k) e^(i (m - n) theta)]. *)
Theorem complex_score_relative : forall (theta : R) (m n : Z) (q k : vec2),
  dot2 (cmul q (cexp (IZR m * theta))) (cmul k (cexp (IZR n * theta)))
  = v0 (cmul (cmul q (cconj k)) (cexp (IZR (m - n) * theta))).
Proof.
  intros theta m n [q0 q1] [k0 k1]. unfold dot2, cmul, cconj, cexp; simpl.
  rewrite minus_IZR. replace ((IZR m - IZR n) * theta) with (IZR m * theta - IZR n * theta) by ring.
  rewrite cos_minus, sin_minus. ring.
Qed.

Print Assumptions complex_form_eq_matrix.
Print Assumptions elementwise_form_eq_matrix.
Print Assumptions complex_score_relative.
