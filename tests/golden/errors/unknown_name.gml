colors red, blue
let leaf = blue & exactly 1 true
classify red & <2> leaves
