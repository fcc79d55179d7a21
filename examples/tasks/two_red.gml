# A red node with two red in-neighbours somewhere, and no green node fed by three blue ones.
colors red, blue, green
classify exists (red & atleast 2 red) & !exists (green & atleast 3 blue)
