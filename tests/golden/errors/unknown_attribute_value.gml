attribute element = C, O
classify element=N
