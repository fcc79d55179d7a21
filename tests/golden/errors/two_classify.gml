colors red
classify red
classify <1> red
