"""docs/options.md, the reference of the grader's options, written from their traits (autograder/cli.py's commands):

    python -m autograder.options_doc            (make options-doc) writes it
    python -m autograder.options_doc --check    exit status 1 where the file is not what the code makes
"""
import sys

from autograder import cli, options
from autograder.paths import ROOT

DOC = ROOT / "docs" / "options.md"


def text():
    return options.markdown([(name, summary, classes()) for name, (summary, _, classes) in cli.COMMANDS.items()], ROOT)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if "--check" in argv:
        current = DOC.read_text(encoding="utf-8") if DOC.is_file() else ""
        if current != text():
            print(f"{DOC.relative_to(ROOT)} is out of date: python -m autograder.options_doc writes it", file=sys.stderr)
            return 1
        return 0
    DOC.parent.mkdir(parents=True, exist_ok=True)
    DOC.write_text(text(), encoding="utf-8")
    print(f"wrote {DOC.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
