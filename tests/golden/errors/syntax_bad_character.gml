classify Col(red) @ Col(blue)
