"""How well the exercise names a beginner's mistake: precision and recall over the labelled corpora.

Checks every loop of tests/beginner_loops/, of tests/beginner_loops_heldout/
(written later, blind to the naming code; one realistic bug each, or none) and of
tests/beginner_loops_unseen/ (the patterns an outside corpus found, labelled before their first run)
against every exercise script, sandboxed as `check-loop` does, and prints, per
loop, what each failing script named; then precision (named right / named,
over every failing script: a wrong name sends the learner to fix code that is
right, so this is the number that must not fall), and recall (loops whose
mistake was named on at least one script / loops with a mistake), overall and
per mistake, for each corpus and for all of them. Exits 1 if any mistake was named on
a loop whose bug it does not describe, or a correct loop failed.

    python bench/mistake_naming.py [--only NAME_PART] [--quiet] [--corpus DIR ...]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]  # this checkout's agent package, not an installed one

from naming_corpus import CORPORA, Named, Score, corpus, name_loop, score  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="", help="check only the loops whose file name contains this")
    parser.add_argument("--quiet", action="store_true", help="print only the wrong names and the figures")
    parser.add_argument("--corpus", type=Path, action="append",
                        help="a folder of labelled loops to score (again for more); default: every corpus")
    args = parser.parse_args()
    failed = False
    everything, total_seconds = [], 0.0
    for folder in args.corpus or CORPORA:
        started = time.perf_counter()
        results = score_folder(folder, args.only, args.quiet)
        seconds = time.perf_counter() - started
        everything += results
        total_seconds += seconds
        failed |= not figures(results, seconds)
    if len(args.corpus or CORPORA) > 1:
        print("\n== all corpora")
        figures(everything, total_seconds)
    per_mistake(score(everything))
    return 1 if failed else 0


def score_folder(folder: Path, only: str, quiet: bool) -> list[Named]:
    """Check every loop of one corpus folder, printing what each failing script named."""
    print(f"== {folder.name}/")
    results = []
    for loop in corpus(folder):
        if only not in loop.name:
            continue
        result = name_loop(loop)
        results.append(result)
        if result.check.problem:
            print(f"{loop.name}: not checked: {result.check.problem}")
            continue
        names = sorted({str(name) for name in result.names.values()})
        failed = bool(result.names)
        mark = ("WRONG" if result.wrong or (loop.label is None and failed) else
                "ok" if loop.label is None or result.found or not loop.expects_name and failed else "unnamed")
        if quiet and mark in ("ok", "unnamed"):
            continue
        print(f"{mark:8} {loop.name:36} label={loop.label or 'none':24} failing={len(result.names):2} "
              f"named={','.join(names) or '-'}")
        for script, name in result.wrong.items():
            print(f"{'':9}wrong on {script}: {name}")
    return results


def figures(results: list[Named], seconds: float) -> bool:
    """Print precision, recall and the rest for some checked loops; False if any loop was named wrong, a
    correct loop failed, or a bug no mistake describes failed nowhere."""
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
    return not (any(r.wrong for r in results) or failed_correct or quiet < len(unnamed))


def per_mistake(total: Score) -> None:
    print()
    print(f"{'mistake':24} {'precision':>14} {'recall':>10}")
    for mistake, counts in sorted(total.per_mistake.items()):
        named, right, loops, found = (counts[k] for k in ("named", "right", "loops", "found"))
        shown_precision = f"{right / named:.2f} ({right}/{named})" if named else "-"
        shown_recall = f"{found}/{loops}" if loops else "-"
        print(f"{mistake:24} {shown_precision:>14} {shown_recall:>10}")


if __name__ == "__main__":
    sys.exit(main())
