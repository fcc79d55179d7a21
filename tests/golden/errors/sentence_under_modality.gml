colors red
classify <2> exists red
