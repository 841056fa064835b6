"""Z3 proofs about the merge order (SPEC 3.1, 3.2, 8): each returns a `Proof`;
`link` checks that what they reason about is what `model/` computes."""
