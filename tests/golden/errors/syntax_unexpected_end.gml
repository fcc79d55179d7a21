colors red
classify red &
