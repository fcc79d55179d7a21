"""`python -m gracr.cli`: `gracrc`."""

import sys

from gracr.cli import main

if __name__ == "__main__":   # a module walk that imports every module runs nothing
    sys.exit(main())
