colors red
classify exists[4, 2] red
