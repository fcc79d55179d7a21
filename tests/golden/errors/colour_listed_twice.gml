colors red, red, blue
classify red
