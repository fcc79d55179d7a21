colors red, blue
let a = red & blue
