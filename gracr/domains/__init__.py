"""The domains: plug-ins on the benchmark engine (`gracr.bench`), each a `Study` of its own
plus the published numbers it is compared with.

- `paper`: the Gracr paper's six tasks, its tables and ablations;
- `chem`: molecules and SMARTS patterns, the WOMBAT study (optional extra `chem`);
- `tissue`: synthetic tissue samples and the tissue benchmark note's study;
- `headlines`: the table both peer studies (WOMBAT's, the tissue note's) open their reports
  with: each of the paper's headline findings, reproduced / not reproduced / not run, and
  why where it differs.
"""
