# Redundancy (App. F, Eq. 15): a black node with at least one red neighbour.
# grey and silver are the background colours. Graph classifier.
colors black, red, grey, silver

classify exists (black & <1> red)
