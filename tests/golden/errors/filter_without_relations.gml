colors red
classify <1>{double} red
