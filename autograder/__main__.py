"""``python -m autograder grade ...``: the same as the ``autograder`` command."""
import sys

from autograder.cli import main

sys.exit(main())
