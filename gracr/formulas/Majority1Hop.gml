# Majority1Hop (App. F, Eq. 17): strictly more red in-neighbours than blue ones.
# Node classifier. The paper compiles it with --max-degree 50 (Eq. 6, 4 x 203) or
# --comparison direct (Eq. 8, 1 x 3).
colors red, blue, green

classify more(red, blue)
