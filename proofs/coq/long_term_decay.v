(* ropecheck certificate: RoPE's long-term decay, the Abel summation and its bound.

   RoFormer (section 3.4.3) writes the attention score of a query q at position m and a key k at
   position n as Re sum_{i<N} h_i e^{i(m-n) theta_i}, with h_i = q_[i] conj(k_[i]) and N = d/2, and
   bounds it by Abel summation: with S_j = sum_{k<j} e^{i(m-n) theta_k} and h_N = 0,
       sum_{i<N} h_i e_i = - sum_{i<N} S_{i+1} (h_{i+1} - h_i),
       |sum_{i<N} h_i e_i| <= (max_i |h_{i+1} - h_i|) sum_{j=1}^{N} |S_j|.
   Here the complex numbers are pairs of reals, the sequences h and e are arbitrary, and N is
   every natural number; e_k = e^{i r theta_k} is one instance.

   Theorems (every N, every pair of complex sequences):
     partial_sums_start       S_0 = 0
     partial_sums_increment   S_{N+1} - S_N = e_N
     summation_by_parts       sum_{i<N} h_i (s_{i+1} - s_i)
                                = h_N s_N - h_0 s_0 - sum_{i<N} s_{i+1} (h_{i+1} - h_i)   (any s)
     abel_summation           with S the partial sums of e and h_N = 0:
                                sum_{i<N} h_i e_i = - sum_{i<N} S_{i+1} (h_{i+1} - h_i)
     abel_bound               with h_N = 0 and |h_{i+1} - h_i| <= M for every i < N:
                                |Re sum_{i<N} h_i e_i| <= |sum_{i<N} h_i e_i| <= M sum_{j=1}^{N} |S_j|

   Mirrors the SymPy family "long_term_decay" (theorem long_term_decay: partial_sums_start,
   partial_sums_increment, by_parts_base, by_parts_step and the bound's steps). The score identity
   itself (the score equals Re sum_i h_i e^{i(m-n) theta_i}) is checked by SymPy only.

   Compile on its own:
     coqc -Q proofs/coq RopeCheck proofs/coq/long_term_decay.v *)

From Coq Require Import Reals Lra.
Open Scope R_scope.

(* ------------------------------------------------------------------ complex numbers as pairs *)

Record C : Type := mkC { re : R; im : R }.

Definition czero : C := mkC 0 0.
Definition cadd (a b : C) : C := mkC (re a + re b) (im a + im b).
Definition csub (a b : C) : C := mkC (re a - re b) (im a - im b).
Definition copp (a : C) : C := mkC (- re a) (- im a).
Definition cmul (a b : C) : C := mkC (re a * re b - im a * im b) (re a * im b + im a * re b).
Definition cabs (a : C) : R := sqrt (re a * re a + im a * im a).

Lemma C_ext : forall a b : C, re a = re b -> im a = im b -> a = b.
Proof. intros [a1 a2] [b1 b2]; simpl; intros -> ->; reflexivity. Qed.

(* sum_{i<n} f i *)
Fixpoint csum (f : nat -> C) (n : nat) : C :=
  match n with
  | O => czero
  | S k => cadd (csum f k) (f k)
  end.

Fixpoint rsum (f : nat -> R) (n : nat) : R :=
  match n with
  | O => 0
  | S k => rsum f k + f k
  end.

(* S_j = sum_{k<j} e_k *)
Definition partial (e : nat -> C) (j : nat) : C := csum e j.

(* ------------------------------------------------------------------ the identities *)

Theorem partial_sums_start : forall e : nat -> C, partial e 0 = czero.
Proof. reflexivity. Qed.

Theorem partial_sums_increment : forall (e : nat -> C) (N : nat), csub (partial e (S N)) (partial e N) = e N.
Proof. intros e N; apply C_ext; simpl; ring. Qed.

Theorem summation_by_parts : forall (h s : nat -> C) (N : nat),
  csum (fun i => cmul (h i) (csub (s (S i)) (s i))) N =
  csub (csub (cmul (h N) (s N)) (cmul (h O) (s O))) (csum (fun i => cmul (s (S i)) (csub (h (S i)) (h i))) N).
Proof.
  intros h s N; induction N as [|N IH].
  - apply C_ext; simpl; ring.
  - change (csum (fun i => cmul (h i) (csub (s (S i)) (s i))) (S N))
      with (cadd (csum (fun i => cmul (h i) (csub (s (S i)) (s i))) N) (cmul (h N) (csub (s (S N)) (s N)))).
    change (csum (fun i => cmul (s (S i)) (csub (h (S i)) (h i))) (S N))
      with (cadd (csum (fun i => cmul (s (S i)) (csub (h (S i)) (h i))) N) (cmul (s (S N)) (csub (h (S N)) (h N)))).
    rewrite IH. apply C_ext; simpl; ring.
Qed.

Theorem abel_summation : forall (h e : nat -> C) (N : nat),
  h N = czero ->
  csum (fun i => cmul (h i) (e i)) N = copp (csum (fun i => cmul (partial e (S i)) (csub (h (S i)) (h i))) N).
Proof.
  intros h e N HN.
  assert (Hterms : forall n, csum (fun i => cmul (h i) (e i)) n
                             = csum (fun i => cmul (h i) (csub (partial e (S i)) (partial e i))) n).
  { induction n as [|n IHn]; [reflexivity|].
    change (cadd (csum (fun i => cmul (h i) (e i)) n) (cmul (h n) (e n)) =
            cadd (csum (fun i => cmul (h i) (csub (partial e (S i)) (partial e i))) n)
                 (cmul (h n) (csub (partial e (S n)) (partial e n)))).
    rewrite IHn, partial_sums_increment. reflexivity. }
  rewrite Hterms, (summation_by_parts h (partial e) N), HN.
  apply C_ext; simpl; ring.
Qed.

(* ------------------------------------------------------------------ moduli *)

Lemma cabs_nonneg : forall a : C, 0 <= cabs a.
Proof. intros a; apply sqrt_pos. Qed.

Lemma sum_squares_nonneg : forall x y : R, 0 <= x * x + y * y.
Proof. intros x y; nra. Qed.

Lemma cabs_mul : forall a b : C, cabs (cmul a b) = cabs a * cabs b.
Proof.
  intros [a1 a2] [b1 b2]; unfold cabs; simpl.
  rewrite <- sqrt_mult by apply sum_squares_nonneg.
  f_equal; ring.
Qed.

Lemma cabs_triangle : forall a b : C, cabs (cadd a b) <= cabs a + cabs b.
Proof.
  intros [a1 a2] [b1 b2]; unfold cabs; simpl.
  set (x := sqrt (a1 * a1 + a2 * a2)). set (y := sqrt (b1 * b1 + b2 * b2)).
  assert (Hx : 0 <= x) by apply sqrt_pos. assert (Hy : 0 <= y) by apply sqrt_pos.
  assert (Hxx : x * x = a1 * a1 + a2 * a2) by (apply sqrt_sqrt, sum_squares_nonneg).
  assert (Hyy : y * y = b1 * b1 + b2 * b2) by (apply sqrt_sqrt, sum_squares_nonneg).
  (* Cauchy-Schwarz in the plane: a1 b1 + a2 b2 <= x y, from (x y)^2 - (a1 b1 + a2 b2)^2 = (a1 b2 - a2 b1)^2 *)
  assert (Hcs : a1 * b1 + a2 * b2 <= x * y).
  { assert (Hsq : (a1 * b1 + a2 * b2) * (a1 * b1 + a2 * b2) <= (x * y) * (x * y)).
    { replace ((x * y) * (x * y)) with ((x * x) * (y * y)) by ring. rewrite Hxx, Hyy.
      assert (Hl : (a1 * a1 + a2 * a2) * (b1 * b1 + b2 * b2) - (a1 * b1 + a2 * b2) * (a1 * b1 + a2 * b2)
                   = (a1 * b2 - a2 * b1) * (a1 * b2 - a2 * b1)) by ring.
      pose proof (Rle_0_sqr (a1 * b2 - a2 * b1)) as Hs; unfold Rsqr in Hs. lra. }
    assert (Hxy : 0 <= x * y) by nra. nra. }
  rewrite <- (sqrt_square (x + y)) by lra.
  apply sqrt_le_1_alt. nra.
Qed.

Lemma cabs_re : forall a : C, Rabs (re a) <= cabs a.
Proof.
  intros [a1 a2]; unfold cabs; simpl.
  rewrite <- sqrt_Rsqr_abs. apply sqrt_le_1_alt. unfold Rsqr. nra.
Qed.

Lemma cabs_opp : forall a : C, cabs (copp a) = cabs a.
Proof. intros [a1 a2]; unfold cabs; simpl; f_equal; ring. Qed.

Lemma cabs_csum : forall (f : nat -> C) (N : nat), cabs (csum f N) <= rsum (fun i => cabs (f i)) N.
Proof.
  intros f N; induction N as [|N IH]; simpl.
  - unfold cabs; simpl. replace (0 * 0 + 0 * 0) with 0 by ring. rewrite sqrt_0; lra.
  - eapply Rle_trans; [apply cabs_triangle|]. lra.
Qed.

Lemma rsum_le : forall (f g : nat -> R) (N : nat),
  (forall i, (i < N)%nat -> f i <= g i) -> rsum f N <= rsum g N.
Proof.
  intros f g N; induction N as [|N IH]; intros H; simpl; [lra|].
  assert (rsum f N <= rsum g N) by (apply IH; intros i Hi; apply H; auto).
  assert (f N <= g N) by (apply H; auto). lra.
Qed.

Lemma rsum_scale : forall (M : R) (f : nat -> R) (N : nat), rsum (fun i => M * f i) N = M * rsum f N.
Proof. intros M f N; induction N as [|N IH]; simpl; [ring|]. rewrite IH; ring. Qed.

(* ------------------------------------------------------------------ the bound *)

Theorem abel_bound : forall (h e : nat -> C) (N : nat) (M : R),
  h N = czero ->
  (forall i, (i < N)%nat -> cabs (csub (h (S i)) (h i)) <= M) ->
  Rabs (re (csum (fun i => cmul (h i) (e i)) N)) <= cabs (csum (fun i => cmul (h i) (e i)) N) /\
  cabs (csum (fun i => cmul (h i) (e i)) N) <= M * rsum (fun j => cabs (partial e (S j))) N.
Proof.
  intros h e N M HN HM. split; [apply cabs_re|].
  rewrite (abel_summation h e N HN), cabs_opp.
  eapply Rle_trans; [apply cabs_csum|].
  rewrite <- rsum_scale. apply rsum_le. intros i Hi.
  rewrite cabs_mul. specialize (HM i Hi).
  pose proof (cabs_nonneg (partial e (S i))). nra.
Qed.

Print Assumptions partial_sums_start.
Print Assumptions partial_sums_increment.
Print Assumptions summation_by_parts.
Print Assumptions abel_summation.
Print Assumptions abel_bound.
