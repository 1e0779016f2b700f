(* ropecheck certificate: RoPE linear attention depends on positions only through n - m.

   RoPE linear attention (RoFormer, section 3.3) computes, for a query at integer position m
   with features phi(q) and keys at positions n with features phi(k_n) and values v_n, the
   numerator
       sum_n <R_m phi(q), R_n phi(k_n)> v_n.
   The keys are an arbitrary finite list of (position n, feature vector phi(k_n), value v_n);
   phi is any feature map, so phi(q) and phi(k_n) are arbitrary vectors of R^d, d = 2h.
   One value channel is treated; every channel of a value vector is the same sum.

   Theorems (every list of frequencies, every even d, every finite list of keys):
     linear_attention_relative        numerator = sum_n phi(q)^T R_(n-m) phi(k_n) v_n
     linear_attention_shift_invariance  shifting the query and every key by the same
                                        integer s leaves the numerator unchanged

   Mirrors the SymPy family "linear_attention" (theorem linear_attention: keys_sum,
   relative_dN_keysJ, translation_dN_keysJ), here for any number of keys and any even d.

   Compile after rotation_group.v and relative_position.v:
     coqc -Q proofs/coq RopeCheck proofs/coq/linear_attention.v *)

From Coq Require Import Reals Lra Lia ZArith List.
From RopeCheck Require Import rotation_group relative_position.
Import ListNotations.
Open Scope R_scope.

(* A key: (position n, feature vector phi(k_n), value v_n). *)
Definition key : Type := (Z * list R * R)%type.

(* sum_n <R_m phi(q), R_n phi(k_n)> v_n *)
Fixpoint numerator (thetas : list R) (m : Z) (phiq : list R) (keys : list key) : R :=
  match keys with
  | [] => 0
  | (n, kn, vn) :: rest => dot (rope thetas m phiq) (rope thetas n kn) * vn + numerator thetas m phiq rest
  end.

(* sum_n phi(q)^T R_(n-m) phi(k_n) v_n *)
Fixpoint relative_numerator (thetas : list R) (m : Z) (phiq : list R) (keys : list key) : R :=
  match keys with
  | [] => 0
  | (n, kn, vn) :: rest => dot phiq (rope thetas (n - m) kn) * vn + relative_numerator thetas m phiq rest
  end.

Definition shift_keys (s : Z) (keys : list key) : list key :=
  map (fun '(n, kn, vn) => ((n + s)%Z, kn, vn)) keys.

(* every key's feature vector has length d = 2h *)
Definition keys_of_length (d : nat) (keys : list key) : Prop :=
  Forall (fun '(_, kn, _) => length kn = d) keys.

Theorem linear_attention_relative : forall (thetas : list R) (m : Z) (phiq : list R) (keys : list key),
  length phiq = (2 * length thetas)%nat -> keys_of_length (2 * length thetas) keys ->
  numerator thetas m phiq keys = relative_numerator thetas m phiq keys.
Proof.
  intros thetas m phiq keys Hq Hk. induction Hk as [|[[n kn] vn] rest Hkn Hrest IH]; simpl.
  - reflexivity.
  - rewrite IH, rope_relative_position by assumption. reflexivity.
Qed.

Theorem linear_attention_shift_invariance : forall (thetas : list R) (m s : Z) (phiq : list R) (keys : list key),
  length phiq = (2 * length thetas)%nat -> keys_of_length (2 * length thetas) keys ->
  numerator thetas (m + s) phiq (shift_keys s keys) = numerator thetas m phiq keys.
Proof.
  intros thetas m s phiq keys Hq Hk. induction Hk as [|[[n kn] vn] rest Hkn Hrest IH]; simpl.
  - reflexivity.
  - rewrite IH, rope_shift_invariance by assumption. reflexivity.
Qed.

Print Assumptions linear_attention_relative.
Print Assumptions linear_attention_shift_invariance.
