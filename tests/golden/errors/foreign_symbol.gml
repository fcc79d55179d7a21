colors red
classify red ∧ !red
