"""Typed IR x graph -> ROBDD over edge and/or node variables -> Extend -> Extract -> UPI mask (§4.3, App. D).

- `backend`: the `BDDBackend` protocol, its variables (`Var`: `x_e` per edge, `y_v`
  per node) and its `dd.cudd` / `dd.autoref` adapters.
- `build`: BuildNode (Algorithm 4) and BuildGraph (Algorithm 5), over edges, nodes
  (deletion semantics) or both (`over`).
- `polarity`: the syntactic monotonicity check behind the Extend shortcut, per mode.
- `upi`: Extend (Algorithm 2), Extract (Algorithm 3), UnionPI (Algorithm 1), with
  their cost (`upi_report`), `receptive_field` and `node_receptive_field`.
- `relevance`: the signed ground truth (counterfactuals, Banzhaf, Shapley) over nodes.
- `ground_truth`: both as one frozen `GroundTruth`, the public `gracr.ground_truth`.
- `brute`: the UPI by enumerating every subgraph of the chosen kind, the tests' oracle.

Nothing is re-exported here, so that `gracr.bdd.upi` stays the module (the API is
`gracr.bdd.ground_truth.ground_truth`, re-exported as `gracr.ground_truth`).
"""
