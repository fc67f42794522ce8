"""The built wheel works on its own: installed (not editable) into a fresh venv, it runs a built-in script."""

import shutil
import subprocess
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_installed_package_runs_a_builtin_script(tmp_path):
    source = tmp_path / "src"  # a copy, so the build leaves nothing in the checkout
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(".git", ".venv", "venv", "*.egg-info", "build",
                                                                "__pycache__", "test-artifacts", ".hypothesis"))
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True, system_site_packages=False)
    python = env_dir / "bin" / "python"
    # no deps: a fake run needs neither streamlit nor anthropic
    subprocess.run([python, "-m", "pip", "install", "-q", "--no-deps", str(source)],
                   check=True, capture_output=True, timeout=300)
    done = subprocess.run([python, "-m", "agent", "run", "add_then_answer"], capture_output=True, text=True,
                          cwd=tmp_path, timeout=60)
    assert done.stdout == 'turn 1: add {"a": 2, "b": 3} -> 5\nresult: 2 + 3 is 5.\nmessages sent each turn: 1, 3\n'
    listed = subprocess.run([python, "-m", "agent", "scripts"], capture_output=True, text=True, cwd=tmp_path)
    assert len(listed.stdout.splitlines()) == len(list((ROOT / "scripts").glob("*.json")))
    # The pytest plugin is registered for any project that installs the package (tests/test_pytest_plugin.py uses it).
    plugins = subprocess.run([python, "-c", "from importlib.metadata import entry_points; "
                              "print([e.value for e in entry_points(group='pytest11') if e.name == 'loop_sandbox'])"],
                             capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert plugins.stdout.strip() == "['agent.real.pytest_plugin']"
    # The player ships with the package: an exported run and a notebook's output need its files.
    shipped = subprocess.run([python, "-c", "from importlib import resources; print(sorted(p.name for p in "
                              "resources.files('agent.page').joinpath('player').iterdir()))"],
                             capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert shipped.stdout.strip() == "['VENDOR.json', 'player.css', 'player.js', 'viz-global.js']"
