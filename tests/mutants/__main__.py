"""Print the mutation table of the checks: python -m tests.mutants [unit ...]   (make mutants)

With --learner-style, the table of learner-style mutants instead (tests/mutants/learner_style.py).
"""
import sys
import time

from . import UNIT_NAMES, evaluate_unit
from .equivalent import why_equivalent


def main(units):
    start, total = time.perf_counter(), []
    head = (f"{'unit':<28} {'mutants':>7} {'behav':>5} {'equiv':>5} {'visible kills':>13} {'hidden fails':>12} "
            f"{'id vis/hid':>10} {'WRONG id vis/hid':>16}  seconds")
    print(head)
    notes = []
    for unit in units:
        began = time.perf_counter()
        results = evaluate_unit(unit)
        total += results
        built = [r for r in results if not r.error]
        changing = [r for r in built if r.changes_behaviour]
        visible = [r for r in changing if r.visible] if any(r.visible is not None for r in built) else None
        hidden = [r for r in changing if r.hidden]
        named = {w: sum(bool(r.printed.get(w)) for r in built) for w in ("visible", "hidden")}
        wrong = {w: sum(w in r.wrong for r in built) for w in ("visible", "hidden")}
        score = f"{len(visible)}/{len(changing)}" if visible is not None else "-"
        print(f"{unit:<28} {len(results):>7} {len(changing):>5} {len(built) - len(changing):>5} {score:>13} "
              f"{len(hidden):>5}/{len(changing):<6} {_share(named, built):>10} {_share(wrong, built):>16}  "
              f"{time.perf_counter() - began:.1f}")
        for r in results:
            m = r.mutant
            if r.error:
                notes.append(f"  {unit}: {m.label} {m.change}: not built ({r.error})")
            elif not r.changes_behaviour:
                notes.append(f"  {unit}: {m.label} {m.change}: equivalent: {why_equivalent(m)}")
            elif visible is not None and not r.visible:
                notes.append(f"  {unit}: {m.label} {m.change}: SURVIVES the visible test")
            if r.changes_behaviour and not r.hidden:
                notes.append(f"  {unit}: {m.label} {m.change}: passes the hidden values check; failed by "
                             f"{', '.join(r.other_aspects) or 'NO hidden aspect'}")
            for where, ids in r.wrong.items():
                notes.append(f"  {unit}: {m.label} {m.change}: WRONG {where} id [{'+'.join(ids)}]")
    print("\n".join(["", "notes:", *notes]))
    wrong = sum(bool(r.wrong) for r in total)
    print(f"\n{len(total)} mutants of {len(units)} units; {sum(r.changes_behaviour for r in total)} change behaviour; "
          f"{wrong} print a wrong id; {time.perf_counter() - start:.0f} s")
    return 1 if wrong else 0


def _share(counts, built):
    return f"{counts['visible']}/{counts['hidden']}" if built else "-"


if __name__ == "__main__":
    if sys.argv[1:2] == ["--learner-style"]:
        from .learner_style import main as learner_style

        raise SystemExit(learner_style(sys.argv[2:]))
    raise SystemExit(main(sys.argv[1:] or list(UNIT_NAMES)))
