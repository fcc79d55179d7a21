colors red, fed
classify atlest 2 fed
