(* ropecheck certificate: the half-split ("rotate_half") and interleaved layouts agree.

   For a vector x of even length d = 2h:
     - the interleaved layout pairs (x_(2i), x_(2i+1)) (RoPE as in relative_position.v);
     - the half-split layout pairs (x_i, x_(i+h)); its RoPE is the elementwise form used by
       GPT-NeoX / Llama code: x * [cos, cos] + rotate_half(x) * [sin, sin] with
       rotate_half(x) = [-x_(h..2h-1), x_(0..h-1)];
     - P, the even-first permutation, de-interleaves: P x = [x_0, x_2, .., x_1, x_3, ..];
       interleave is its inverse and its transpose (P^T).

   Main theorems (for every list of h frequencies, hence every even d, all integers m n):
     even_first_permutation_orthogonal   P^T P x = x, P P^T x = x, <P x, y> = <x, P^T y> and
                                         <P x, P y> = <x, y> (interleave is P^T = P^-1)
     half_split_eq_permuted_interleaved  R_half(m) x = P R_interleaved(m) P^T x
     layouts_scores_agree                <R_half(m) P q, R_half(n) P k> = <R_int(m) q, R_int(n) k>
     half_split_relative_position        <R_half(m) q, R_half(n) k> = q^T R_half(n - m) k
   Lemma (used by half_split_eq_permuted_interleaved):
     half_split_pairs                    half-split RoPE turns (x_i, x_(i+h)) by R(m theta_i)

   Mirrors the SymPy family "layouts" (theorem layouts_agree), which is also proved for every
   even d = 2h with h symbolic: conjugate_first and conjugate_second (R_half(m) P x, in the
   elementwise form above, equals P R_interleaved(m) x at coordinates i and h + i, i < h),
   cover_half (those coordinates cover the 2h once), permutation_* (P preserves inner
   products) and scores (the scores agree).

   Compile after rotation_group.v, relative_position.v and forms.v:
     coqc -Q proofs/coq RopeCheck proofs/coq/layouts.v *)

From Coq Require Import Reals Lra Lia ZArith List.
From RopeCheck Require Import rotation_group relative_position forms.
Import ListNotations.
Open Scope R_scope.

(* P: the even-first permutation (de-interleave). *)
Definition deinterleave (x : list R) : list R := map v0 (pairs x) ++ map v1 (pairs x).

Fixpoint zip2 (a b : list R) : list vec2 :=
  match a, b with
  | x :: r, y :: s => Vec2 x y :: zip2 r s
  | _, _ => []
  end.

(* P^T: interleave the two halves. *)
Definition interleave (x : list R) : list R :=
  let h := Nat.div2 (length x) in flatten (zip2 (firstn h x) (skipn h x)).

Definition rotate_half (x : list R) : list R :=
  let h := Nat.div2 (length x) in map Ropp (skipn h x) ++ firstn h x.

Definition cos_half (thetas : list R) (m : Z) : list R :=
  map (fun t => cos (IZR m * t)) thetas ++ map (fun t => cos (IZR m * t)) thetas.

Definition sin_half (thetas : list R) (m : Z) : list R :=
  map (fun t => sin (IZR m * t)) thetas ++ map (fun t => sin (IZR m * t)) thetas.

(* Half-split RoPE: x * cos + rotate_half(x) * sin. *)
Definition rope_half (thetas : list R) (m : Z) (x : list R) : list R :=
  vadd (vmul x (cos_half thetas m)) (vmul (rotate_half x) (sin_half thetas m)).

(* ---- list facts *)

Lemma length_vmul : forall x y, length (vmul x y) = Nat.min (length x) (length y).
Proof. induction x as [|a r IH]; intros [|b s]; simpl; auto. Qed.

Lemma vmul_app : forall x1 x2 y1 y2, length x1 = length y1 ->
  vmul (x1 ++ x2) (y1 ++ y2) = vmul x1 y1 ++ vmul x2 y2.
Proof.
  induction x1 as [|a r IH]; intros x2 [|b s] y2 H; simpl in *; try lia; try reflexivity.
  rewrite IH by lia. reflexivity.
Qed.

Lemma vadd_app : forall x1 x2 y1 y2, length x1 = length y1 ->
  vadd (x1 ++ x2) (y1 ++ y2) = vadd x1 y1 ++ vadd x2 y2.
Proof.
  induction x1 as [|a r IH]; intros x2 [|b s] y2 H; simpl in *; try lia; try reflexivity.
  rewrite IH by lia. reflexivity.
Qed.

Lemma firstn_len_app : forall (a b : list R), firstn (length a) (a ++ b) = a.
Proof. induction a as [|x r IH]; intros b; simpl; [reflexivity | now rewrite IH]. Qed.

Lemma skipn_len_app : forall (a b : list R), skipn (length a) (a ++ b) = b.
Proof. induction a as [|x r IH]; intros b; simpl; [reflexivity | now rewrite IH]. Qed.

Lemma split_halves : forall (h : nat) (x : list R), length x = (2 * h)%nat ->
  exists a b, x = a ++ b /\ length a = h /\ length b = h.
Proof.
  intros h x H. exists (firstn h x), (skipn h x). split; [symmetry; apply firstn_skipn|].
  rewrite firstn_length, skipn_length. lia.
Qed.

Lemma div2_halves : forall (a b : list R), length a = length b ->
  Nat.div2 (length (a ++ b)) = length a.
Proof.
  intros a b H. rewrite app_length, <- H. replace (length a + length a)%nat with (2 * length a)%nat by lia.
  apply Nat.div2_double.
Qed.

Lemma map_v0_zip2 : forall a b, length a = length b -> map v0 (zip2 a b) = a.
Proof.
  induction a as [|x r IH]; intros [|y s] H; simpl in *; try lia; try reflexivity.
  rewrite IH by lia. reflexivity.
Qed.

Lemma map_v1_zip2 : forall a b, length a = length b -> map v1 (zip2 a b) = b.
Proof.
  induction a as [|x r IH]; intros [|y s] H; simpl in *; try lia; try reflexivity.
  rewrite IH by lia. reflexivity.
Qed.

Lemma length_zip2 : forall a b, length a = length b -> length (zip2 a b) = length a.
Proof.
  induction a as [|x r IH]; intros [|y s] H; simpl in *; try lia.
  rewrite IH by lia. reflexivity.
Qed.

Lemma zip2_map : forall p : list vec2, zip2 (map v0 p) (map v1 p) = p.
Proof. induction p as [|[x y] r IH]; simpl; [reflexivity | now rewrite IH]. Qed.

Lemma length_deinterleave : forall h x, length x = (2 * h)%nat -> length (deinterleave x) = (2 * h)%nat.
Proof.
  intros h x H. unfold deinterleave. rewrite app_length, !map_length, (length_pairs h x H). lia.
Qed.

Lemma length_interleave : forall h x, length x = (2 * h)%nat -> length (interleave x) = (2 * h)%nat.
Proof.
  intros h x H. destruct (split_halves h x H) as (a & b & -> & Ha & Hb).
  unfold interleave. rewrite div2_halves by lia. rewrite firstn_len_app, skipn_len_app.
  rewrite length_flatten, length_zip2; lia.
Qed.

Lemma dot_app : forall a b c d, length a = length c -> dot (a ++ b) (c ++ d) = dot a c + dot b d.
Proof.
  induction a as [|x r IH]; intros b [|y s] d H; simpl in *; try lia.
  - ring.
  - rewrite IH by lia. ring.
Qed.

Lemma dotp_split : forall x y : list vec2,
  dotp x y = dot (map v0 x) (map v0 y) + dot (map v1 x) (map v1 y).
Proof.
  induction x as [|p r IH]; intros [|q s]; simpl; try ring.
  rewrite IH. unfold dot2. ring.
Qed.

(* ---- the half-split layout pairs (x_i, x_(i+h)) *)

Lemma rope_zip2_v0 : forall thetas m a b,
  map v0 (rope_pairs thetas m (zip2 a b))
  = vadd (vmul a (map (fun t => cos (IZR m * t)) thetas))
         (vmul (map Ropp b) (map (fun t => sin (IZR m * t)) thetas)).
Proof.
  induction thetas as [|t ts IH]; intros m [|x a] [|y b]; simpl; try reflexivity.
  rewrite IH. f_equal. ring.
Qed.

Lemma rope_zip2_v1 : forall thetas m a b,
  map v1 (rope_pairs thetas m (zip2 a b))
  = vadd (vmul b (map (fun t => cos (IZR m * t)) thetas))
         (vmul a (map (fun t => sin (IZR m * t)) thetas)).
Proof.
  induction thetas as [|t ts IH]; intros m [|x a] [|y b]; simpl; try reflexivity.
  rewrite IH. f_equal. ring.
Qed.

(* Half-split RoPE of x = a ++ b (halves of length h) turns each pair (a_i, b_i) =
   (x_i, x_(i+h)) by R(m theta_i): the first half holds the first coordinates. *)
Theorem half_split_pairs : forall (thetas : list R) (m : Z) (a b : list R),
  length a = length thetas -> length b = length thetas ->
  rope_half thetas m (a ++ b)
  = map v0 (rope_pairs thetas m (zip2 a b)) ++ map v1 (rope_pairs thetas m (zip2 a b)).
Proof.
  intros thetas m a b Ha Hb. unfold rope_half, rotate_half, cos_half, sin_half.
  rewrite div2_halves by lia. rewrite firstn_len_app, skipn_len_app.
  rewrite !vmul_app by (rewrite ?map_length; lia).
  rewrite vadd_app by (rewrite !length_vmul, !map_length; lia).
  now rewrite rope_zip2_v0, rope_zip2_v1.
Qed.

(* ---- P is a permutation: inverse and transpose *)

Theorem interleave_deinterleave : forall (h : nat) (x : list R),
  length x = (2 * h)%nat -> interleave (deinterleave x) = x.
Proof.
  intros h x H. unfold interleave, deinterleave.
  rewrite div2_halves by (rewrite !map_length; reflexivity).
  rewrite firstn_len_app, skipn_len_app, zip2_map. now apply (flatten_pairs h).
Qed.

Theorem deinterleave_interleave : forall (h : nat) (x : list R),
  length x = (2 * h)%nat -> deinterleave (interleave x) = x.
Proof.
  intros h x H. destruct (split_halves h x H) as (a & b & -> & Ha & Hb).
  unfold interleave, deinterleave. rewrite div2_halves by lia.
  rewrite firstn_len_app, skipn_len_app, pairs_flatten, map_v0_zip2, map_v1_zip2 by lia.
  reflexivity.
Qed.

Lemma deinterleave_dot : forall (h : nat) (x y : list R),
  length x = (2 * h)%nat -> length y = (2 * h)%nat ->
  dot (deinterleave x) (deinterleave y) = dot x y.
Proof.
  intros h x y Hx Hy. unfold deinterleave.
  rewrite dot_app by (rewrite !map_length, (length_pairs h x Hx), (length_pairs h y Hy); reflexivity).
  rewrite <- dotp_split, <- regroup, (flatten_pairs h x Hx), (flatten_pairs h y Hy). reflexivity.
Qed.

Theorem deinterleave_transpose : forall (h : nat) (x y : list R),
  length x = (2 * h)%nat -> length y = (2 * h)%nat ->
  dot (deinterleave x) y = dot x (interleave y).
Proof.
  intros h x y Hx Hy.
  rewrite <- (deinterleave_interleave h y Hy) at 1.
  apply (deinterleave_dot h); [assumption | now apply length_interleave].
Qed.

Theorem even_first_permutation_orthogonal : forall (h : nat) (x y : list R),
  length x = (2 * h)%nat -> length y = (2 * h)%nat ->
  interleave (deinterleave x) = x /\ deinterleave (interleave x) = x /\
  dot (deinterleave x) y = dot x (interleave y) /\
  dot (deinterleave x) (deinterleave y) = dot x y.
Proof.
  intros h x y Hx Hy. repeat split.
  - now apply (interleave_deinterleave h).
  - now apply (deinterleave_interleave h).
  - now apply (deinterleave_transpose h).
  - now apply (deinterleave_dot h).
Qed.

(* ---- the layouts agree *)

(* R_half(m) = P R_interleaved(m) P^T, applied to every vector of length 2h. *)
Theorem half_split_eq_permuted_interleaved : forall (thetas : list R) (m : Z) (x : list R),
  length x = (2 * length thetas)%nat ->
  rope_half thetas m x = deinterleave (rope thetas m (interleave x)).
Proof.
  intros thetas m x H. destruct (split_halves _ x H) as (a & b & -> & Ha & Hb).
  rewrite half_split_pairs by assumption.
  unfold interleave, deinterleave, rope. rewrite div2_halves by lia.
  now rewrite firstn_len_app, skipn_len_app, !pairs_flatten.
Qed.

(* Permuting q and k alike gives the same scores in the two layouts. *)
Theorem layouts_scores_agree : forall (thetas : list R) (m n : Z) (q k : list R),
  length q = (2 * length thetas)%nat -> length k = (2 * length thetas)%nat ->
  dot (rope_half thetas m (deinterleave q)) (rope_half thetas n (deinterleave k))
  = dot (rope thetas m q) (rope thetas n k).
Proof.
  intros thetas m n q k Hq Hk.
  rewrite !half_split_eq_permuted_interleaved by (now apply length_deinterleave).
  rewrite (interleave_deinterleave _ q Hq), (interleave_deinterleave _ k Hk).
  apply (deinterleave_dot (length thetas)); now apply length_rope.
Qed.

(* Relative position in the half-split layout. *)
Theorem half_split_relative_position : forall (thetas : list R) (m n : Z) (q k : list R),
  length q = (2 * length thetas)%nat -> length k = (2 * length thetas)%nat ->
  dot (rope_half thetas m q) (rope_half thetas n k) = dot q (rope_half thetas (n - m) k).
Proof.
  intros thetas m n q k Hq Hk.
  pose proof (length_interleave _ q Hq) as Iq. pose proof (length_interleave _ k Hk) as Ik.
  rewrite !half_split_eq_permuted_interleaved by assumption.
  rewrite (deinterleave_dot (length thetas)) by (now apply length_rope).
  rewrite rope_relative_position by assumption.
  rewrite <- (deinterleave_interleave _ q Hq) at 2.
  symmetry. apply (deinterleave_dot (length thetas)); [assumption | now apply length_rope].
Qed.

Print Assumptions even_first_permutation_orthogonal.
Print Assumptions half_split_eq_permuted_interleaved.
Print Assumptions layouts_scores_agree.
Print Assumptions half_split_relative_position.
