colors red
classify <-1> red & atleast -2 red
