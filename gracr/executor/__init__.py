"""The executors: the one implementation of the layer equation (Eq. 2 with typed edges).

`plan` turns a compiled `Network` into per-layer plans (which relations each layer
sums over, which columns it reads and writes); `numpy_backend`, `torch_backend`
(PyG modules with the surrogate or exact derivative, per-layer edge weights, fused
inference, the target cone) and `numba_backend` run those plans. `model.CompiledGNN`
is a network together with these forward passes; `protocol` puts every executor behind
one `run(network, batch) -> outputs` with its declared capabilities.
"""
