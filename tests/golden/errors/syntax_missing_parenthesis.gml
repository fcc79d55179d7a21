colors red
classify more(red, red
