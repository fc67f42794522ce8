"""The labelled corpora of beginner loops (tests/beginner_loops/ and tests/beginner_loops_heldout/), checked and
scored for how mistakes are named.

Each file is one learner's loop with one realistic bug, or none, and says on its
first line which mistake the check must name for it (`# mistake: KEY`, a key of
MISTAKES), or `# mistake: unnamed` for a bug none of them describes (it must
fail and name nothing), or `# mistake: none` for a correct loop (it must pass). A loop is checked against
every exercise script, as `check-loop` would; each failing script either names
a mistake or names none. A name that is not the label is a wrong name: it would
send the learner to fix code that is right. Both the test over the corpus and
`bench/mistake_naming.py` score the corpus here.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from agent.exercise import Limits, LoopCheck, check_loop

CORPUS = Path(__file__).resolve().parent / "beginner_loops"
HELDOUT = Path(__file__).resolve().parent / "beginner_loops_heldout"
"""Loops written afterwards by someone who had not read the naming code, to score it as an outsider would."""
UNSEEN = Path(__file__).resolve().parent / "beginner_loops_unseen"
"""Loops written for the patterns an outside corpus found named wrong or not at all, in styles the other two lack
(generators, dispatch dicts, functools.reduce, dataclasses, deep copies, itertools.count, async), labelled before
their first run."""
CORPORA = (CORPUS, HELDOUT, UNSEEN)
LIMITS = Limits(seconds=10.0)  # generous: the machine is shared, and no loop here hangs
UNNAMED = "unnamed"
_LABEL = re.compile(r"^# mistake: (\w+)\n")


@dataclass(frozen=True)
class Loop:
    """One loop of the corpus."""

    name: str
    """Its file's name, without .py."""
    label: str | None
    """The mistake it must be named, `unnamed` for a bug it must fail with no name, or None for a correct loop."""
    source: str

    @property
    def expects_name(self) -> bool:
        return self.label not in (None, UNNAMED)


@dataclass
class Named:
    """What the check said of one loop."""

    loop: Loop
    check: LoopCheck
    names: dict[str, str | None] = field(default_factory=dict)
    """Each failing script's named mistake (None: named nothing)."""

    @property
    def wrong(self) -> dict[str, str]:
        """The scripts on which a mistake other than the label was named."""
        return {script: name for script, name in self.names.items() if name and name != self.loop.label}

    @property
    def found(self) -> bool:
        """Whether the label was named on at least one script."""
        return self.loop.label in self.names.values()


def corpus(folder: Path = CORPUS) -> list[Loop]:
    """Every loop of a corpus folder, in file-name order; a file without its label line is a ValueError."""
    loops = []
    for path in sorted(folder.glob("*.py")):
        text = path.read_text(encoding="utf-8")
        match = _LABEL.match(text)
        if not match:
            raise ValueError(f"{path.name}: the first line must be '# mistake: KEY', 'unnamed' or 'none'")
        label = None if match.group(1) == "none" else match.group(1)
        loops.append(Loop(path.stem, label, text))
    return loops


@functools.cache
def name_loop(loop: Loop, limits: Limits = LIMITS) -> Named:
    """Check one loop against every exercise script and note what each failing script named (once per loop
    and limits: the test over the corpus and the tests of single cases share the checks)."""
    check = check_loop(loop.source, limits=limits, filename=f"{loop.name}.py")
    named = Named(loop, check)
    named.names = {result.script: result.mistake for result in check.scripts if not result.passed}
    return named


@dataclass
class Score:
    """Precision and recall of the naming over some checked loops."""

    named: int = 0
    """(loop, script) pairs on which a mistake was named."""
    right: int = 0
    """Of those, the ones where it was the loop's label."""
    buggy: int = 0
    """Loops labelled with a mistake to name."""
    found: int = 0
    """Of those, the ones whose label was named on at least one script."""
    per_mistake: dict[str, Counter] = field(default_factory=dict)

    @property
    def precision(self) -> float:
        return self.right / self.named if self.named else 1.0

    @property
    def recall(self) -> float:
        return self.found / self.buggy if self.buggy else 1.0


def score(results: list[Named]) -> Score:
    """Precision (named right / named, over every failing script) and recall (loops whose label was named /
    labelled loops), overall and per mistake (precision per mistake counts the scripts that named it)."""
    total = Score()
    for result in results:
        label = result.loop.label
        if result.loop.expects_name:
            total.buggy += 1
            total.found += result.found
            total.per_mistake.setdefault(label, Counter()).update(loops=1, found=int(result.found))
        for name in result.names.values():
            if name is None:
                continue
            total.named += 1
            total.right += name == label
            total.per_mistake.setdefault(name, Counter()).update(named=1, right=int(name == label))
    return total
