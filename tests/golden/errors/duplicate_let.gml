colors red
let a = red
let a = <1> red
classify a
