(* ropecheck certificate: relative position for every even dimension d.

   A vector of R^d, d = 2h, is a list of d reals; its pairs are (x_(2i), x_(2i+1)),
   i = 0 .. h-1 (the interleaved layout). The frequencies theta_0 .. theta_(h-1) are an
   arbitrary list of h reals that does not depend on the position. RoPE at integer
   position m is block diagonal: pair i is turned by the 2x2 rotation R(m theta_i).

   Main theorems (for every list of frequencies, hence every even d, all integers m n s):
     rope_relative_position_blocks   <R_m q, R_n k> = sum_i q_i^T R((n - m) theta_i) k_i
     rope_relative_position          <R_m q, R_n k> = q^T R_(n-m) k
     rope_shift_invariance           <R_(m+s) q, R_(n+s) k> = <R_m q, R_n k>
   Lemma (used by rope_relative_position):
     regroup                         the inner product over the d coordinates is the sum
                                     over the h pairs (the regrouping lemma)

   Mirrors the SymPy family "relative_position_general" (theorem relative_position_general:
   regroup_base / regroup_step, block_score, block_sum), proved here by induction on the
   number of pairs instead of with a symbolic upper summation limit.

   Compile after rotation_group.v:
     coqc -Q proofs/coq RopeCheck proofs/coq/relative_position.v *)

From Coq Require Import Reals Lra Lia ZArith List.
From RopeCheck Require Import rotation_group.
Import ListNotations.
Open Scope R_scope.

(* The pairs (x_(2i), x_(2i+1)) of a vector, and back. *)
Fixpoint pairs (x : list R) : list vec2 :=
  match x with
  | a :: b :: r => Vec2 a b :: pairs r
  | _ => []
  end.

Fixpoint flatten (x : list vec2) : list R :=
  match x with
  | [] => []
  | p :: r => v0 p :: v1 p :: flatten r
  end.

(* The inner product of two coordinate lists and of two pair lists. *)
Fixpoint dot (x y : list R) : R :=
  match x, y with
  | a :: r, b :: s => a * b + dot r s
  | _, _ => 0
  end.

Fixpoint dotp (x y : list vec2) : R :=
  match x, y with
  | a :: r, b :: s => dot2 a b + dotp r s
  | _, _ => 0
  end.

(* RoPE on pairs: pair i of x is turned by R(m theta_i). *)
Fixpoint rope_pairs (thetas : list R) (m : Z) (x : list vec2) : list vec2 :=
  match thetas, x with
  | t :: ts, p :: ps => mvmul (rot (IZR m * t)) p :: rope_pairs ts m ps
  | _, _ => []
  end.

(* RoPE on a vector of R^d: R_(Theta,m) x, the block-diagonal rotation. *)
Definition rope (thetas : list R) (m : Z) (x : list R) : list R :=
  flatten (rope_pairs thetas m (pairs x)).

(* sum_i q_i^T R(r theta_i) k_i *)
Fixpoint block_sum (thetas : list R) (r : Z) (q k : list vec2) : R :=
  match thetas, q, k with
  | t :: ts, a :: qs, b :: ks => dot2 a (mvmul (rot (IZR r * t)) b) + block_sum ts r qs ks
  | _, _, _ => 0
  end.

Lemma pairs_flatten : forall x : list vec2, pairs (flatten x) = x.
Proof. induction x as [|[a b] r IH]; simpl; [reflexivity | now rewrite IH]. Qed.

Lemma flatten_pairs : forall (h : nat) (x : list R),
  length x = (2 * h)%nat -> flatten (pairs x) = x.
Proof.
  induction h as [|h IH]; intros x Hx.
  - destruct x; [reflexivity | discriminate].
  - destruct x as [|a [|b r]]; simpl in Hx; try lia.
    simpl. rewrite IH by lia. reflexivity.
Qed.

Lemma length_pairs : forall (h : nat) (x : list R),
  length x = (2 * h)%nat -> length (pairs x) = h.
Proof.
  induction h as [|h IH]; intros x Hx.
  - destruct x; [reflexivity | discriminate].
  - destruct x as [|a [|b r]]; simpl in Hx; try lia.
    simpl. rewrite IH by lia. reflexivity.
Qed.

Lemma length_flatten : forall x : list vec2, length (flatten x) = (2 * length x)%nat.
Proof. induction x as [|p r IH]; simpl; [reflexivity | rewrite IH; lia]. Qed.

Lemma length_rope_pairs : forall thetas m x,
  length x = length thetas -> length (rope_pairs thetas m x) = length thetas.
Proof.
  induction thetas as [|t ts IH]; intros m [|p ps] H; simpl in *; try lia.
  rewrite IH by lia. reflexivity.
Qed.

Lemma length_rope : forall thetas m x,
  length x = (2 * length thetas)%nat -> length (rope thetas m x) = (2 * length thetas)%nat.
Proof.
  intros thetas m x H. unfold rope.
  rewrite length_flatten, length_rope_pairs; [reflexivity|]. now apply length_pairs.
Qed.

(* Regrouping: the sum over the 2h coordinates is the sum over the h pairs. *)
Theorem regroup : forall x y : list vec2, dot (flatten x) (flatten y) = dotp x y.
Proof.
  induction x as [|a r IH]; intros [|b s]; simpl; try reflexivity.
  rewrite IH. unfold dot2. ring.
Qed.

Lemma block_sum_dotp : forall thetas r q k,
  block_sum thetas r q k = dotp q (rope_pairs thetas r k).
Proof.
  induction thetas as [|t ts IH]; intros r [|a qs] [|b ks]; simpl; try reflexivity.
  now rewrite IH.
Qed.

(* The block sum form: every pair contributes q_i^T R((n - m) theta_i) k_i. *)
Theorem rope_relative_position_blocks : forall (thetas : list R) (m n : Z) (q k : list vec2),
  dotp (rope_pairs thetas m q) (rope_pairs thetas n k) = block_sum thetas (n - m) q k.
Proof.
  induction thetas as [|t ts IH]; intros m n [|a qs] [|b ks]; simpl; try reflexivity.
  rewrite IH, rope_relative_position_2d. reflexivity.
Qed.

(* Relative position for every even d = 2h: the score depends on m, n only through n - m. *)
Theorem rope_relative_position : forall (thetas : list R) (m n : Z) (q k : list R),
  length q = (2 * length thetas)%nat -> length k = (2 * length thetas)%nat ->
  dot (rope thetas m q) (rope thetas n k) = dot q (rope thetas (n - m) k).
Proof.
  intros thetas m n q k Hq Hk. unfold rope.
  rewrite regroup, rope_relative_position_blocks, block_sum_dotp.
  rewrite <- (flatten_pairs (length thetas) q Hq) at 2.
  now rewrite regroup.
Qed.

(* Shift invariance: moving query and key by the same integer s leaves the score unchanged. *)
Theorem rope_shift_invariance : forall (thetas : list R) (m n s : Z) (q k : list R),
  length q = (2 * length thetas)%nat -> length k = (2 * length thetas)%nat ->
  dot (rope thetas (m + s) q) (rope thetas (n + s) k) = dot (rope thetas m q) (rope thetas n k).
Proof.
  intros thetas m n s q k Hq Hk.
  rewrite !rope_relative_position by assumption.
  now replace (n + s - (m + s))%Z with (n - m)%Z by lia.
Qed.

Print Assumptions rope_relative_position_blocks.
Print Assumptions rope_relative_position.
Print Assumptions rope_shift_invariance.
