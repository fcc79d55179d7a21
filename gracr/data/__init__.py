"""The bottom layer: graphs (`graph.Graph`, the graph JSON reader and writer), schemas
(`schema.Schema`: colours, attribute families, relations, numeric features), the JSON text
limits, and the random graph generators and motifs (numba kernels in `kernels`,
`generators`, `motifs`). It imports nothing else of gracr.

A regular package (not a namespace one) so that tools reading the source statically, such
as the API reference's griffe, find its modules.
"""
