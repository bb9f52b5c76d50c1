"""`python -m harness9`: the same entry point as the `harness9` console script."""

from harness9.cli import main

if __name__ == "__main__":
    main()
