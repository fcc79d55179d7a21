colors red, blue
classify <2 blue
