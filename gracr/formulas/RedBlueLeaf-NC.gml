# RedBlueLeaf-NC (App. F, Eq. 19): a red core (exactly two blue leaves) next to
# another red core. Node classifier with a 3-hop receptive field.
colors red, blue, green

let leaf = blue & exactly 1 true
let core = red & exactly 2 leaf

classify core & <1> core
