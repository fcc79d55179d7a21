colors red
classify exists red & red
