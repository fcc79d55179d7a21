# several problems are reported together, in source order
colors red, blue
let x = purple & <1> red
let y = between 5 2 blue
classify exists x & y & <-3> z
