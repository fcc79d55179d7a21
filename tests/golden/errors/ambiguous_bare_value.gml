attribute element = C, O
attribute isotope = C, D
classify <1> C
