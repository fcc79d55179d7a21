"""The Gracr paper as a domain: its six GracrBench tasks (`tasks`, App. F), the numbers its
tables report (`published`) and its ablations (`ablations`, App. C.3-C.5)."""
