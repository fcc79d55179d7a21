# Majority2Hop (App. F, Eq. 18): the majority rule applied twice (two rounds of
# label propagation). Node classifier: --max-degree 50 gives 8 x 505,
# --comparison direct 2 x 5.
colors red, blue, green

let redish  = more(red, blue)
let blueish = more(blue, red)

classify more(redish, blueish)
