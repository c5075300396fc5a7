"""Entry point: `python -m rocmdoctor` and the `rocmdoctor` console script."""

from __future__ import annotations

import sys


def main() -> int:
    from rocmdoctor.cli.main import run

    return run(sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
