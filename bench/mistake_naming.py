"""How well the exercise names a beginner's mistake: precision and recall over the labelled corpus.

Checks every loop of tests/beginner_loops/ (one realistic bug each, or none)
against every exercise script, sandboxed as `check-loop` does, and prints, per
loop, what each failing script named; then precision (named right / named,
over every failing script: a wrong name sends the learner to fix code that is
right, so this is the number that must not fall), and recall (loops whose
mistake was named on at least one script / loops with a mistake), overall and
per mistake. Exits 1 if any mistake was named on a loop whose bug it does not
describe, or a correct loop failed.

    python bench/mistake_naming.py [--only NAME_PART] [--quiet]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from naming_corpus import CORPUS, corpus, name_loop, score  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="", help="check only the loops whose file name contains this")
    parser.add_argument("--quiet", action="store_true", help="print only the wrong names and the figures")
    parser.add_argument("--corpus", type=Path, default=CORPUS, help="the folder of labelled loops to score")
    args = parser.parse_args()
    loops = [loop for loop in corpus(args.corpus) if args.only in loop.name]
    started = time.perf_counter()
    results = []
    for loop in loops:
        result = name_loop(loop)
        results.append(result)
        if result.check.problem:
            print(f"{loop.name}: not checked: {result.check.problem}")
            continue
        names = sorted({str(name) for name in result.names.values()})
        failed = bool(result.names)
        mark = ("WRONG" if result.wrong or (loop.label is None and failed) else
                "ok" if loop.label is None or result.found or not loop.expects_name and failed else "unnamed")
        if args.quiet and mark in ("ok", "unnamed"):
            continue
        print(f"{mark:8} {loop.name:36} label={loop.label or 'none':24} failing={len(result.names):2} "
              f"named={','.join(names) or '-'}")
        for script, name in result.wrong.items():
            print(f"{'':9}wrong on {script}: {name}")
    seconds = time.perf_counter() - started
    total = score(results)
    correct = [r for r in results if r.loop.label is None]
    unnamed = [r for r in results if r.loop.label is not None and not r.loop.expects_name]
    print()
    print(f"{len(results)} loops ({total.buggy} with a named mistake, {len(unnamed)} with a bug no mistake "
          f"describes, {len(correct)} correct), checked in {seconds:.1f} s")
    print(f"precision: {total.precision:.3f} ({total.right} named right of {total.named} named, over failing scripts)")
    print(f"recall:    {total.recall:.3f} ({total.found} of {total.buggy} loops with a named mistake had it named)")
    quiet = sum(1 for r in unnamed if r.names and not r.wrong)
    print(f"bugs no mistake describes that failed with no name: {quiet} of {len(unnamed)}")
    failed_correct = [r.loop.name for r in correct if not r.check.passed]
    print(f"correct loops that passed every script: {len(correct) - len(failed_correct)} of {len(correct)}"
          + (f" (failed: {', '.join(failed_correct)})" if failed_correct else ""))
    print()
    print(f"{'mistake':24} {'precision':>14} {'recall':>10}")
    for mistake, counts in sorted(total.per_mistake.items()):
        named, right, loops, found = (counts[k] for k in ("named", "right", "loops", "found"))
        shown_precision = f"{right / named:.2f} ({right}/{named})" if named else "-"
        shown_recall = f"{found}/{loops}" if loops else "-"
        print(f"{mistake:24} {shown_precision:>14} {shown_recall:>10}")
    wrong = [r for r in results if r.wrong]
    return 1 if wrong or failed_correct or quiet < len(unnamed) else 0


if __name__ == "__main__":
    sys.exit(main())
