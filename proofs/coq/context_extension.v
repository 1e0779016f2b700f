(* ropecheck certificate: context-extension schedules keep the relative property.

   A context-extension schedule replaces the frequencies theta_i by new ones. As long as
   the new frequencies do not depend on the position, RoPE with them is RoPE with some
   other list of reals, so the general theorem (relative_position.v) applies unchanged.

   Main theorems (every list of frequencies, every even d, all integer positions):
     schedule_keeps_relative         any map g applied to the frequencies keeps
                                     <R_m q, R_n k> = q^T R_(n-m) k (shift invariance
                                     follows as in rope_shift_invariance)
     linear_scaling_keeps_relative   linear interpolation theta_i / s
     named_schedules_keep_relative   static NTK (b s^(d/(d-2)))^(-2i/d), YaRN with its ramp
                                     and its attention factor a (cos and sin multiplied by
                                     a: every score is a^2 times the relative one), Llama 3
                                     with its smooth blend
     cross_length_frequencies_break_shift
                                     the boundary: when the query's and the key's
                                     frequencies differ (as with dynamic NTK and keys cached at
                                     another length), shift invariance fails for some
                                     frequencies, positions and vectors

   Mirrors the SymPy family "context_extension" (theorem context_extension: linear,
   static_ntk, yarn, llama3, longrope, dynamic_ntk_same_length; dynamic_ntk_cross_length is
   refuted there with the exact dynamic-NTK angles, here with one simple pair of mismatched
   frequencies).

   Compile after rotation_group.v and relative_position.v:
     coqc -Q proofs/coq RopeCheck proofs/coq/context_extension.v *)

From Coq Require Import Reals Lra Lia ZArith List.
From RopeCheck Require Import rotation_group relative_position.
Import ListNotations.
Open Scope R_scope.

(* Linear interpolation (position interpolation): theta_i / s. *)
Definition linear_scaling (s : R) (thetas : list R) : list R := map (fun t => t / s) thetas.

(* Static NTK: the base b becomes b s^(d/(d-2)); theta_i = base'^(-2i/d), i = 0 .. h-1. *)
Definition ntk_freqs (b s d : R) (h : nat) : list R :=
  map (fun i => Rpower (b * Rpower s (d / (d - 2))) (- (2 * INR i) / d)) (seq 0 h).

(* YaRN: r = L theta / (2 pi) turns in the original context length L; the ramp
   gamma = clamp((r - alpha) / (beta - alpha), 0, 1) blends theta / s and theta. *)
Definition yarn_freq (s alpha beta L t : R) : R :=
  let r := L * t / (2 * PI) in
  let gamma := Rmax 0 (Rmin 1 ((r - alpha) / (beta - alpha))) in
  t * ((1 - gamma) / s + gamma).

(* Llama 3: keep high frequencies, divide low ones by the factor, blend in between. *)
Definition llama3_freq (factor low_ff high_ff L t : R) : R :=
  let wavelen := 2 * PI / t in
  if Rlt_dec wavelen (L / high_ff) then t
  else if Rlt_dec (L / low_ff) wavelen then t / factor
  else
    let smooth := (L / wavelen - low_ff) / (high_ff - low_ff) in
    (1 - smooth) * t / factor + smooth * t.

(* YaRN's attention factor: cos and sin (hence the rotated vector) multiplied by a. *)
Definition scale (a : R) (x : list R) : list R := map (fun t => a * t) x.

Lemma dot_scale : forall (a b : R) (x y : list R), dot (scale a x) (scale b y) = a * b * dot x y.
Proof. induction x as [|u x IH]; intros [|v y]; simpl; try ring. rewrite IH. ring. Qed.

Theorem schedule_keeps_relative : forall (g : R -> R) (thetas : list R) (m n : Z) (q k : list R),
  length q = (2 * length thetas)%nat -> length k = (2 * length thetas)%nat ->
  dot (rope (map g thetas) m q) (rope (map g thetas) n k) = dot q (rope (map g thetas) (n - m) k).
Proof.
  intros g thetas m n q k Hq Hk. apply rope_relative_position; now rewrite map_length.
Qed.

Theorem linear_scaling_keeps_relative : forall (s : R) (thetas : list R) (m n : Z) (q k : list R),
  length q = (2 * length thetas)%nat -> length k = (2 * length thetas)%nat ->
  dot (rope (linear_scaling s thetas) m q) (rope (linear_scaling s thetas) n k)
  = dot q (rope (linear_scaling s thetas) (n - m) k).
Proof. intros s. apply schedule_keeps_relative. Qed.

Theorem named_schedules_keep_relative :
  (* static NTK, for every base b, factor s, head dimension d = 2h *)
  (forall (b s : R) (h : nat) (m n : Z) (q k : list R),
     length q = (2 * h)%nat -> length k = (2 * h)%nat ->
     dot (rope (ntk_freqs b s (INR (2 * h)) h) m q) (rope (ntk_freqs b s (INR (2 * h)) h) n k)
     = dot q (rope (ntk_freqs b s (INR (2 * h)) h) (n - m) k)) /\
  (* YaRN, for every factor s, ramp bounds alpha beta, original length L and attention
     factor a (a = 0.1 ln s + 1 in YaRN; a = 1 is the schedule alone) *)
  (forall (s alpha beta L a : R) (thetas : list R) (m n : Z) (q k : list R),
     length q = (2 * length thetas)%nat -> length k = (2 * length thetas)%nat ->
     dot (scale a (rope (map (yarn_freq s alpha beta L) thetas) m q))
         (scale a (rope (map (yarn_freq s alpha beta L) thetas) n k))
     = a * a * dot q (rope (map (yarn_freq s alpha beta L) thetas) (n - m) k)) /\
  (* Llama 3, for every factor, low and high frequency factors and original length L *)
  (forall (factor low_ff high_ff L : R) (thetas : list R) (m n : Z) (q k : list R),
     length q = (2 * length thetas)%nat -> length k = (2 * length thetas)%nat ->
     dot (rope (map (llama3_freq factor low_ff high_ff L) thetas) m q)
         (rope (map (llama3_freq factor low_ff high_ff L) thetas) n k)
     = dot q (rope (map (llama3_freq factor low_ff high_ff L) thetas) (n - m) k)).
Proof.
  split; [|split].
  - intros b s h m n q k Hq Hk. apply rope_relative_position;
      unfold ntk_freqs; now rewrite map_length, seq_length.
  - intros s alpha beta L a thetas m n q k Hq Hk.
    now rewrite dot_scale, schedule_keeps_relative.
  - intros factor low_ff high_ff L. apply schedule_keeps_relative.
Qed.

(* With different frequencies for the query (0) and the key (pi), shifting both positions
   by 1 changes the score of q = k = (1, 0) from 1 to -1. *)
Theorem cross_length_frequencies_break_shift :
  exists (thetas_q thetas_k : list R) (m n s : Z) (q k : list R),
    length thetas_q = length thetas_k /\
    length q = (2 * length thetas_q)%nat /\ length k = (2 * length thetas_k)%nat /\
    dot (rope thetas_q (m + s) q) (rope thetas_k (n + s) k)
    <> dot (rope thetas_q m q) (rope thetas_k n k).
Proof.
  exists [0], [PI], 0%Z, 0%Z, 1%Z, [1; 0], [1; 0].
  repeat split; try reflexivity.
  unfold rope; simpl. unfold rot, mvmul, dot2; simpl.
  rewrite !Rmult_0_l, !Rmult_0_r, Rmult_1_l, cos_0, sin_0, cos_PI, sin_PI.
  lra.
Qed.

Print Assumptions schedule_keeps_relative.
Print Assumptions linear_scaling_keeps_relative.
Print Assumptions named_schedules_keep_relative.
Print Assumptions cross_length_frequencies_break_shift.
