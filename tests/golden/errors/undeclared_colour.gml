colors red, blue
classify Col(red) & <1> Col(green)
