"""Print the zoo's table: for each id, whether its bugs were caught and named; then the
right answers' pass count; then which units lose points when one helper is wrong (blame).
python -m tests.zoo.report   (make zoo)"""
from learner_kit.messages import CATALOGUE

from . import load_all, run_check
from .blame import blame_runs, specimen_losses


def main():
    bugs, rights = load_all()
    results = {i: [] for i in CATALOGUE}  # every id of COURSE.md section 4, and the extra generic ones
    for specimen in bugs:
        for aspect in specimen.aspects:
            failure, _ = run_check(specimen, aspect)
            key = "+".join(specimen.expected_ids)
            results.setdefault(key, []).append((failure is not None, specimen.named_by(failure)))
    width = max(map(len, results))
    print(f"{'id':<{width}}  caught  named  (bug runs)")
    for mistake_id, runs in results.items():
        if not runs:
            print(f"{mistake_id:<{width}}  -       -      (no specimen)")
            continue
        caught, named = sum(c for c, _ in runs), sum(n for _, n in runs)
        print(f"{mistake_id:<{width}}  {_mark(caught, runs)}     {_mark(named, runs)}    ({len(runs)})")
    passed = [all(run_check(s, a)[0] is None for a in s.aspects) for s in rights]
    print(f"\nright-answer zoo: {sum(passed)}/{len(passed)} implementations pass every aspect "
          f"({len({s.unit for s in rights})} units)")
    print("\nblame: a wrong helper inside a right composite, as in a notebook; the units that lost points")
    misplaced = 0
    for run in blame_runs():
        fair = run.losing == (run.helper,)
        misplaced += not fair
        print(f"  {run.helper:<22} {run.specimen:<28} in {run.composite:<20} -> {', '.join(run.losing) or 'none'}"
              f"{'' if fair else '   <- WRONG UNIT BLAMED'}")
    print("\nevery wrong specimen: the units that lost points with it (only its own may)")
    losses, unfair = specimen_losses(), 0
    for loss in losses:
        unfair += not loss.fair
        print(f"  {loss.unit:<28} {loss.specimen:<40} {'+'.join(loss.expected):<48} -> {', '.join(loss.losing) or 'none'}"
              f"{'' if loss.fair else '   <- WRONG UNIT BLAMED' if loss.losing else '   <- NOTHING LOST'}")
    failed_bugs = sum(not n for runs in results.values() for _, n in runs)
    print(f"\nsummary: bug runs named {sum(n for runs in results.values() for _, n in runs)}/"
          f"{sum(len(runs) for runs in results.values())}; wrong specimens costing only their own unit "
          f"{len(losses) - unfair}/{len(losses)}; right answers at full marks {sum(passed)}/{len(passed)}")
    return 1 if failed_bugs or misplaced or unfair or not all(passed) else 0


def _mark(count, runs):
    return "yes" if count == len(runs) else f"{count}/{len(runs)}"


if __name__ == "__main__":
    raise SystemExit(main())
