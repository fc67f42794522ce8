"""Mutation testing of the engine's core: how many small wrong changes to the code the tests refuse.

mutmut 3 (the `[mutation]` extra) makes the changes: a comparison flipped, a
value dropped, a string changed, a call's argument removed. Each module runs in
its own scratch copy of the project (`agent/`, `tests/`, `scripts/`,
`examples/` and the page), against only the tests that exercise it (`bench/mutation.toml`
names them per module; mutmut then runs, for each mutant, just the tests that
reached the changed function, stopping at the first failure). A mutant that no
test refuses is a survivor; those `bench/mutation.toml` lists as equivalent
(they change nothing anyone can observe, each with its reason) are reported
apart and left out of the score:

    score = killed / (all mutants - equivalent ones)

A timeout counts as killed (the tests noticed: the run never ended).

    python bench/mutation.py                          # every module (slow: hours on two shared cores)
    python bench/mutation.py --module rules --module requests
    python bench/mutation.py --sample 40 --seed 1     # 40 mutants drawn at random from each module
    python bench/mutation.py --module loop --workdir /tmp/mut-loop   # keep the copy
    python bench/mutation.py --module loop --workdir /tmp/mut-loop --again   # after adding tests: the survivors only

It needs mutmut (`pip install -e ".[mutation]"`) and uses a little of its inside
(mutant generation and diffs), so the extra pins mutmut's minor version.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CONFIG = Path(__file__).resolve().with_suffix(".toml")
# The project as the tests need it (a test or two opens the page).
COPIED = ("agent", "tests", "scripts", "examples", "views", "sandbox_app.py", ".streamlit")
KILLED = {"killed", "timeout", "caught by type check"}

# Run inside a scratch copy with mutmut's config in place: the two things the command line does not offer.
GENERATE = """
from mutmut.__main__ import copy_also_copy_files, copy_src_dir, create_mutants, set_mutant_under_test
set_mutant_under_test("mutant_generation")
copy_src_dir(); copy_also_copy_files(); create_mutants(1)
"""
DIFFS = """
import json, sys
from mutmut.mutation.diff_apply import get_diff_for_mutant
names, path = json.loads(sys.stdin.read()), sys.argv[1]
print(json.dumps({name: get_diff_for_mutant(name, path=path) for name in names}))
"""


@dataclass
class Survivor:
    name: str
    line: int | None
    removed: list[str]
    added: list[str]
    reason: str | None  # why it is equivalent, when the list says so


def load_config() -> dict:
    return tomllib.loads(CONFIG.read_text())


def module_path(config: dict, name: str) -> str:
    """`rules`, `exercise/verdict` or `agent/api/rules.py` -> the path the config uses."""
    for path in config["modules"]:
        if name in (path, Path(path).stem, path.removeprefix("agent/").removesuffix(".py")):
            return path
    raise SystemExit(f"no module {name!r} in {CONFIG.name}; known: "
                     f"{', '.join(p.removeprefix('agent/').removesuffix('.py') for p in config['modules'])}")


def prepare(workdir: Path, module: str, tests: list[str]) -> None:
    """A scratch copy of the project whose mutmut config mutates `module` and runs `tests`."""
    workdir.mkdir(parents=True, exist_ok=True)
    for name in COPIED:
        if (ROOT / name).is_file():
            shutil.copy2(ROOT / name, workdir / name)
        elif (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, workdir / name, dirs_exist_ok=True,
                            ignore=shutil.ignore_patterns("__pycache__", ".hypothesis"))
    project = (ROOT / "pyproject.toml").read_text()
    project = re.sub(r"\n\[tool\.mutmut\]\n.*?(?=\n\[|\Z)", "", project, flags=re.S)
    project += (
        "\n[tool.mutmut]\n"
        'source_paths = ["agent/"]\n'
        f"only_mutate = {json.dumps([module])}\n"
        'also_copy = ["examples/", "scripts/", "views/", "sandbox_app.py", ".streamlit/"]\n'
        f"pytest_add_cli_args_test_selection = {json.dumps(tests)}\n"
        'pytest_add_cli_args = ["-p", "no:cacheprovider", "-W", "ignore"]\n'
        # A mutant that loops forever is stopped after about 3x its tests' usual CPU time (mutmut's default, 15x,
        # holds a shared two-core machine for half an hour on the checker's widely used functions).
        "timeout_multiplier = 3.0\n"
    )
    (workdir / "pyproject.toml").write_text(project)


def mutmut(workdir: Path, args: list[str], **kwargs) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # the copy's agent, not ours
    return subprocess.run([sys.executable, *args], cwd=workdir, env=env, text=True, **kwargs)


def results(workdir: Path, module: str) -> dict[str, str]:
    from mutmut.stats import status_by_exit_code

    meta = json.loads((workdir / "mutants" / f"{module}.meta").read_text())
    return {name: status_by_exit_code[code] for name, code in meta["exit_code_by_key"].items()}


def function_of(name: str) -> str:
    """`agent.api.rules.x_check_pair__mutmut_6` -> `check_pair`; methods: `RequestChecker._check_from`."""
    last = name.rpartition(".")[2].removeprefix("x_").removeprefix("x")
    return last.rpartition("__mutmut_")[0].strip("ǁ").replace("ǁ", ".")


def survivors(workdir: Path, module: str, names: list[str], equivalents: list[dict]) -> list[Survivor]:
    if not names:
        return []
    out = mutmut(workdir, ["-c", DIFFS, module], input=json.dumps(names), capture_output=True, check=True).stdout
    diffs = json.loads(out)
    source = (ROOT / module).read_text().splitlines()
    found = []
    for name in names:
        lines = diffs[name].splitlines()[2:]
        removed = [line[1:].strip() for line in lines if line.startswith("-")]
        added = [line[1:].strip() for line in lines if line.startswith("+")]
        reason = next((e["reason"] for e in equivalents if e["module"] == module
                       and [line.strip() for line in e["before"].splitlines()] == removed
                       and [line.strip() for line in e["after"].splitlines()] == added), None)
        found.append(Survivor(name, line_of(source, function_of(name), lines), removed, added, reason))
    return found


def line_of(source: list[str], function: str, hunk: list[str]) -> int | None:
    """The changed line's number in the module. mutmut diffs the function alone, so the hunk's start counts
    from the function's `def`; where that line is not the one removed (the function found under another name),
    the first line equal to it after the `def` (a statement the function holds twice may then be misplaced)."""
    define = re.compile(rf"\s*(async )?def {re.escape(function.rpartition('.')[2])}\(")
    start = next((i for i, line in enumerate(source) if define.match(line)), 0)
    removed = [line[1:].strip() for line in hunk if line.startswith("-")]
    if not removed:
        return start + 1
    at = re.match(r"@@ -(\d+)", hunk[0]) if hunk else None
    if at:
        number = int(at.group(1))
        for line in hunk[1:]:
            if line.startswith("-"):
                break
            number += not line.startswith("+")
        if start + number - 1 < len(source) and source[start + number - 1].strip() == removed[0]:
            return start + number
    return next((i + 1 for i in range(start, len(source)) if source[i].strip() == removed[0]), None)


def run_module(config: dict, module: str, args: argparse.Namespace,
               workdir: Path) -> tuple[dict[str, str], list[Survivor]]:
    prepare(workdir, module, config["modules"][module])
    names: list[str] = []
    earlier = workdir / "mutants" / f"{module}.meta"
    if args.again and earlier.exists():  # only what survived last time: the tests grew, the rest stay killed
        names = sorted(n for n, s in results(workdir, module).items() if s not in KILLED | {"not checked"})
        if not names:
            return {n: s for n, s in results(workdir, module).items() if s != "not checked"}, []
    elif args.sample:
        mutmut(workdir, ["-c", GENERATE], capture_output=True, check=True)
        everything = sorted(json.loads((workdir / "mutants" / f"{module}.meta").read_text())["exit_code_by_key"])
        names = sorted(random.Random(f"{args.seed}:{module}").sample(everything, min(args.sample, len(everything))))
    done = mutmut(workdir, ["-m", "mutmut", "run", "--max-children", str(args.max_children), *names],
                  capture_output=True)
    if done.returncode or not (workdir / "mutants" / f"{module}.meta").exists():
        sys.stdout.write(done.stdout[-4000:] + done.stderr[-4000:])
        raise SystemExit(f"mutmut could not run {module} (output above)")
    status = {name: s for name, s in results(workdir, module).items() if s != "not checked"}  # a sample: the drawn
    left = sorted((n for n, s in status.items() if s not in KILLED), key=lambda n: int(n.rpartition("_")[2]))
    return status, survivors(workdir, module, left, config.get("equivalent", []))


def report(module: str, status: dict[str, str], found: list[Survivor]) -> tuple[int, int]:
    equivalent = [s for s in found if s.reason]
    real = [s for s in found if not s.reason]
    killed = sum(s in KILLED for s in status.values())
    counted = len(status) - len(equivalent)
    score = 100 * killed / counted if counted else 100.0
    kinds = {s: n for s in sorted(set(status.values())) if (n := list(status.values()).count(s))}
    print(f"\n{module}: {killed} of {counted} non-equivalent mutants killed = {score:.1f} %"
          f"  ({len(status)} mutants, {len(equivalent)} known equivalent; "
          + ", ".join(f"{n} {s}" for s, n in kinds.items()) + ")")
    for title, group in (("surviving", real), ("known equivalent", equivalent)):
        if group:
            print(f"  {title}:")
        for s in sorted(group, key=lambda s: s.line or 0):
            print(f"    line {s.line}: {' / '.join(s.removed) or '(nothing)'}  ->  {' / '.join(s.added) or '(removed)'}"
                  f"  [{status[s.name]}, {s.name.rpartition('.')[2]}]")
            if s.reason:
                print(f"        equivalent: {s.reason}")
    return killed, counted


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--module", action="append", help="a module to run (e.g. rules, exercise/verdict); repeatable")
    parser.add_argument("--sample", type=int, default=0, help="run only N mutants drawn at random per module")
    parser.add_argument("--seed", default="0", help="the draw's seed (with --sample)")
    parser.add_argument("--max-children", type=int, default=1, help="mutants run at once (default 1: a shared machine)")
    parser.add_argument("--workdir", type=Path, help="keep the scratch copies here (one folder per module)")
    parser.add_argument("--again", action="store_true",
                        help="with the --workdir of an earlier run: run only the mutants that survived it, "
                             "against the tests as they are now (the others keep their result)")
    args = parser.parse_args()
    try:
        import mutmut  # noqa: F401
    except ImportError:
        raise SystemExit('mutmut is not installed: python -m pip install -e ".[mutation]"') from None
    config = load_config()
    modules = [module_path(config, m) for m in args.module] if args.module else list(config["modules"])
    root = args.workdir or Path(tempfile.mkdtemp(prefix="mutation-"))
    totals = [0, 0]
    try:
        for module in modules:
            status, found = run_module(config, module, args, root / module.replace("/", "_").removesuffix(".py"))
            killed, counted = report(module, status, found)
            totals[0] += killed
            totals[1] += counted
    finally:
        if args.workdir is None:
            shutil.rmtree(root, ignore_errors=True)
    if len(modules) > 1:
        print(f"\nall: {totals[0]} of {totals[1]} non-equivalent mutants killed = "
              f"{100 * totals[0] / max(totals[1], 1):.1f} %")


if __name__ == "__main__":
    main()
