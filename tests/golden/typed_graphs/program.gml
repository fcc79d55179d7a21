attribute element = C, O
relations single, double
classify element=C & <1>{double} element=O
