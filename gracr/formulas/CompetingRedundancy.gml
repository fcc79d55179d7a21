# CompetingRedundancy (App. F, Eq. 16): a black node with one red, two blue or
# three green neighbours. grey and silver are the background. Graph classifier.
# Compile with --disjunction demorgan (8 layers x 16 columns, the paper's main
# setting) or --disjunction flat (3 x 9, App. C.5).
colors black, red, blue, green, grey, silver

classify exists (black & (<1> red | <2> blue | <3> green))
