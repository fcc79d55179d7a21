relations single, double
classify <1>{single, triple} true
