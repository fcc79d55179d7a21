# RedBlueLeaf (App. F, Eq. 14): a chain of four red cores, each with exactly two
# blue leaves. Fires on the two interior nodes of the chain. Graph classifier.
colors red, blue, green

let leaf   = blue & exactly 1 true      # a blue node of degree one
let core   = red & exactly 2 leaf       # a red node with exactly two blue leaves
let end    = core & exactly 1 core      # endpoint of the chain
let mid    = core & exactly 2 core      # interior node of the chain
let midend = mid & <1> end              # interior node touching an endpoint

classify exists (midend & <1> midend)
