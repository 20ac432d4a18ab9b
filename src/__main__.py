"""`python -m trifecta ...`: the same command line as the `trifecta` script."""

from .interfaces.cli.main import main

if __name__ == "__main__":
    main()
