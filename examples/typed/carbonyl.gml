# A carbonyl carbon: a C with an O over a double bond (a molecule-style typed program).
colors marked                                      # one colour, to show both kinds of feature
attribute element = C, N, O, other                 # a one-hot family: one value per node
attribute charge = neg, zero, pos
relations single, double, aromatic                 # one relation per edge
let carbonyl_c = element=C & <1>{double} O         # `O` alone: the only declared value of that name
classify carbonyl_c & atmost{single, aromatic} 2 true
