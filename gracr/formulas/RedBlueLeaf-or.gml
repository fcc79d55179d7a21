# RedBlueLeaf, alternative formula φ∨ (App. C.5, Eq. 11): the same motif, firing on
# all four nodes of the chain. Same graphs, labels and UPI as RedBlueLeaf.gml.
colors red, blue, green

let leaf    = blue & exactly 1 true
let core    = red & exactly 2 leaf
let end     = core & exactly 1 core
let mid     = core & exactly 2 core
let midend  = mid & <1> end
let midmid  = mid & <1> midend
let phi_end = end & <1> midmid           # the two endpoints, along the whole chain
let phi_int = mid & <1> end & <1> midend   # the two interior nodes

classify exists (phi_end | phi_int)
