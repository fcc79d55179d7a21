colors red
let red = <1> red
classify red
