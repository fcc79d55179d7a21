colors red
classify between 3 1 red
