"""Every third-party package the code and the tests import is one the project names, not one that happens to be here.

A fresh venv has only what `pip install -e ".[test]"` brings. A module the tests import that only another
package brings along (anthropic 2.14 stopped bringing `httpx`), or that only another extra installs, is there on
a developer's machine and missing on a newcomer's. The imports are read from the source (`ast`), and the
packages that provide them from the installed distributions (`importlib.metadata`).
"""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from functools import cache
from importlib import metadata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"
# Learners' loops, run in the exercise's child process with no site-packages: the standard library only.
LEARNER_FOLDERS = {"beginner_loops", "beginner_loops_heldout", "beginner_loops_unseen"}


def normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def requirement_name(requirement: str) -> str:
    return normalized(re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", requirement).group())


@cache
def project() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def named(*extras: str) -> set[str]:
    """The distributions the dependencies and the given extras name, normalized."""
    wanted = list(project()["dependencies"])
    for extra in extras:
        wanted += project()["optional-dependencies"][extra]
    return {requirement_name(requirement) for requirement in wanted}


@cache
def first_party() -> set[str]:
    # The tests' own modules, and the benchmarks' (a test or two imports a bench module by its folder).
    return {"agent", "views", *(path.stem for path in [*TESTS.glob("*.py"), *ROOT.glob("bench/*.py")])}


def imported(path: Path) -> dict[str, bool]:
    """Each top-level module a file imports, and whether every import of it is guarded: inside `try` with an
    `except ImportError`, or in a function that first asks for an optional package (`peer(...)`,
    `pytest.importorskip(...)`), which skips in words when it is not there."""
    tree = ast.parse(path.read_text(), filename=str(path))
    guarded: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Try) and any(_catches_import_error(handler) for handler in node.handlers):
            guarded |= {id(inner) for statement in node.body for inner in ast.walk(statement)}
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            asks = [inner.lineno for inner in ast.walk(node) if _asks_for_optional(inner)]
            guarded |= {id(inner) for inner in ast.walk(node)
                        if isinstance(inner, ast.Import | ast.ImportFrom) and asks and min(asks) < inner.lineno}
    found: dict[str, bool] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        else:
            continue
        for name in names:
            top = name.split(".")[0]
            found[top] = found.get(top, True) and id(node) in guarded
    return found


def _asks_for_optional(node: ast.AST) -> bool:
    if not isinstance(node, ast.Call):
        return False
    called = node.func
    return (isinstance(called, ast.Name) and called.id in ("peer", "importorskip")) or (
        isinstance(called, ast.Attribute) and called.attr == "importorskip")


def _catches_import_error(handler: ast.ExceptHandler) -> bool:
    caught = handler.type
    names = caught.elts if isinstance(caught, ast.Tuple) else [caught]
    return any(isinstance(name, ast.Name) and name.id in ("ImportError", "ModuleNotFoundError") for name in names)


@cache
def distributions_of_modules() -> dict[str, list[str]]:
    return metadata.packages_distributions()


def providers(module: str) -> set[str]:
    return {normalized(name) for name in distributions_of_modules().get(module, [])}


def unnamed_imports(paths: list[Path], allowed: set[str], optional: set[str]) -> list[str]:
    """Each import of a third-party module no allowed distribution provides, in words."""
    problems = []
    for path in paths:
        for module, is_guarded in imported(path).items():
            if module in sys.stdlib_module_names or module in first_party() or module == "__future__":
                continue
            if (path.parent / f"{module}.py").exists():
                continue  # a script's sibling (the exercise's child loads its guard so), on its path when it runs
            found = providers(module)
            if found & allowed or (is_guarded and (found & optional or not found)):
                continue  # a guarded import that is not installed skips its test in words
            said = ", ".join(sorted(found)) or "no installed distribution"
            where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name
            problems.append(f"{where} imports {module} ({said}), which pyproject.toml does not name")
    return problems


def source_files_of_tests() -> list[Path]:
    return [path for path in TESTS.rglob("*.py") if not LEARNER_FOLDERS & set(path.relative_to(TESTS).parts)]


def test_the_tests_import_only_what_the_dependencies_and_the_test_extra_name():
    extras = set(project()["optional-dependencies"])
    problems = unnamed_imports(source_files_of_tests(), named("test"), named(*extras))
    assert not problems, "\n".join(problems)


def test_the_product_imports_only_its_dependencies():
    plugin = ROOT / "agent/real/pytest_plugin.py"  # loaded by pytest alone, so pytest is there
    code = [*ROOT.glob("agent/**/*.py"), *ROOT.glob("views/*.py"), ROOT / "sandbox_app.py"]
    problems = unnamed_imports([path for path in code if path != plugin], named(), set())
    problems += unnamed_imports([plugin], named() | {"pytest"}, set())
    assert not problems, "\n".join(problems)


def test_the_learners_loops_import_only_the_standard_library():
    loops = [path for path in TESTS.rglob("*.py") if LEARNER_FOLDERS & set(path.relative_to(TESTS).parts)]
    assert loops
    outside = [f"{path.relative_to(ROOT)}: {module}" for path in loops for module in imported(path)
               if module not in sys.stdlib_module_names and module != "__future__"]
    assert not outside, "\n".join(outside)


@pytest.mark.parametrize("source, expected", [
    ("import httpx\n", {"httpx": False}),
    ("from httpx import Client\nimport os.path\n", {"httpx": False, "os": False}),
    ("try:\n    import litellm\nexcept ImportError:\n    litellm = None\n", {"litellm": True}),
    ("try:\n    import litellm\nexcept (ValueError, ModuleNotFoundError):\n    pass\nimport litellm\n",
     {"litellm": False}),
    ("from . import helpers\n", {}),
    ("def test_it():\n    peer('litellm')\n    import litellm\n", {"litellm": True}),
    ("def test_it():\n    import litellm\n    peer('litellm')\n", {"litellm": False}),
    ("def test_it():\n    pytest.importorskip('litellm')\n    from litellm import completion\n", {"litellm": True}),
])
def test_imports_are_read_with_their_guards(tmp_path, source, expected):
    path = tmp_path / "example.py"
    path.write_text(source)
    assert imported(path) == expected


def test_a_module_only_another_package_brings_is_refused(tmp_path):
    path = tmp_path / "test_agent.py"
    path.write_text("import pydantic\nimport anthropic\n")  # anthropic brings pydantic; nothing here names it
    assert unnamed_imports([path], named("test"), set()) == [
        "test_agent.py imports pydantic (pydantic), which pyproject.toml does not name"]


def readme_commands() -> list[str]:
    """The README's two commands: the page's, then the tests'."""
    section = (ROOT / "README.md").read_text().split("## Two commands")[1].split("\n## ")[0]
    return re.findall(r"```sh\n(.*?)\n```", section, re.S)[:2]


def test_ci_runs_the_readmes_two_commands_exactly_before_anything_else_is_installed():
    ci = (ROOT / ".ci" / "run").read_text()
    page, tests = readme_commands()
    assert page == "python -m pip install -e . && python -m streamlit run sandbox_app.py"
    assert tests == 'python -m pip install -e ".[test]" && python -m pytest'
    assert page in ci and tests in ci
    installs = [line for line in ci.splitlines() if "pip install" in line]
    assert installs[0].strip().startswith("( " + page) and installs[1].strip() == tests, installs
    assert ci.index("python3 -m venv .venv") < ci.index(page) < ci.index(tests) < ci.index('install -e ".[peers]"')
