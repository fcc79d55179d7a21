attribute element = C, O
classify charge=neg
