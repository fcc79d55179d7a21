"""The Gracr paper as a domain: its six GracrBench tasks (`tasks`, App. F), the numbers its
tables report (`published`), GracrBench as its study (`study`: `gracrc bench`), its
ablations (`ablations`, App. C.3-C.5) and its report (`report`: Tables 2, 3 and 14 and its
figure, a plug-in of `gracr.bench.report`)."""
