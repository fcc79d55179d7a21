relations single, double
classify atleast{double, double} 2 true
