"""The house rule, checked on the source: the engine uses no wing, and a wing uses another only through its package.

The engine is the modules at the top of `agent/` and its two rooms, `agent/api/` (the request rules) and
`agent/models/` (the model stand-ins), with at most ten modules at the top. The wings are `agent/real/`
(the real model), `agent/exercise/` (the exercise) and `agent/page/` with the
Streamlit views in `views/` (the page). A wing may use the engine freely and
another wing only through what that wing's `__init__` names
(`from agent.real import AnthropicModel`, never `from agent.real.server import ...`).
`agent/__main__.py` is the front door: it may use the wings, through their packages; so may `agent/__init__.py`,
only inside a function (`from agent import play` loads the page's wing when it is asked for, not before).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
WINGS = ("real", "exercise", "page")


def all_imports(source: str) -> list[str]:
    """Every module a source imports (`from agent import loop` is `agent` and `agent.loop`)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.append(node.module)
            if node.module == "agent":  # its names are its modules
                found += [f"agent.{alias.name}" for alias in node.names]
    return found


def imported_modules(source: str) -> list[str]:
    """Every `agent...` module a source imports."""
    return [name for name in all_imports(source) if name == "agent" or name.startswith("agent.")]


def wing_of(name: str) -> str | None:
    """The wing a module name belongs to, or None for the engine."""
    parts = name.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in WINGS else None


def broken_rules(home: str | None, source: str, front_door: bool = False) -> list[str]:
    """What a module in wing `home` (None: the engine) imports against the house rule."""
    problems = []
    for name in imported_modules(source):
        wing = wing_of(name)
        if wing is None or wing == home:
            continue
        if home is None and not front_door:
            problems.append(f"the engine imports the {wing} wing ({name})")
        elif name != f"agent.{wing}":
            problems.append(f"reaches into the {wing} wing's insides ({name}); import from agent.{wing}")
    return problems


def modules() -> list[tuple[str, str | None, bool]]:
    """(path, home wing, front door) for every Python file of the product."""
    found = []
    for path in sorted((ROOT / "agent").rglob("*.py")):
        relative = path.relative_to(ROOT / "agent")
        home = relative.parts[0] if len(relative.parts) > 1 else None
        door = relative.name in ("__main__.py", "__init__.py") and home is None
        found.append((str(path.relative_to(ROOT)), home, door))
    for path in sorted((ROOT / "views").rglob("*.py")) + [ROOT / "sandbox_app.py"]:
        found.append((str(path.relative_to(ROOT)), "page", False))
    return found


@pytest.mark.parametrize(("path", "home", "front_door"), modules())
def test_no_module_imports_upward_or_across_wings(path, home, front_door):
    assert broken_rules(home, (ROOT / path).read_text(encoding="utf-8"), front_door) == []


def test_only_the_views_import_streamlit():
    for path in (ROOT / "agent").rglob("*.py"):
        assert "streamlit" not in {name.split(".")[0] for name in all_imports(path.read_text(encoding="utf-8"))}, path


def test_the_rule_catches_each_way_of_breaking_it():
    assert broken_rules(None, "from agent.real import AnthropicModel") == [
        "the engine imports the real wing (agent.real)"]
    assert broken_rules(None, "from agent import exercise") == ["the engine imports the exercise wing (agent.exercise)"]
    assert broken_rules("exercise", "import agent.page.view") == [
        "reaches into the page wing's insides (agent.page.view); import from agent.page"]
    assert broken_rules("page", "from agent.real.server import StandInServer") == [
        "reaches into the real wing's insides (agent.real.server); import from agent.real"]
    assert broken_rules("page", "from agent.real import StandInServer\nfrom agent.loop import step") == []
    assert broken_rules("real", "from agent.real.pricing import price_for") == []  # its own insides
    assert broken_rules(None, "from agent.exercise import check_loop", front_door=True) == []


STREAMLIT_PAGE_WORDS = ("data-testid", "st-key-", "<script")
"""What knows Streamlit's page: its elements' test ids, a keyed widget's class, a script injected into it."""
OWN_PAGE = {"agent/page/player_html.py"}  # writes a page of its own (the player's), whose scripts are its own


def code_strings(source: str) -> list[str]:
    """Every string a module's code holds (f-strings' parts too), its prose left out: docstrings and the like."""
    tree = ast.parse(source)
    prose = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Expr)}
    return [node.value for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in prose]


def streamlit_page_words(source: str) -> list[str]:
    """The words of Streamlit's page a module's code uses."""
    return sorted({word for text in code_strings(source) for word in STREAMLIT_PAGE_WORDS if word in text})


@pytest.mark.parametrize("path", sorted(str(path.relative_to(ROOT)) for path in (ROOT / "agent" / "page").rglob("*.py")
                                        if str(path.relative_to(ROOT)) not in OWN_PAGE))
def test_the_page_wing_knows_nothing_of_streamlits_page(path):
    """Selectors and scripts for Streamlit's page are in views/; the wing's CSS is only about its own HTML."""
    assert streamlit_page_words((ROOT / path).read_text(encoding="utf-8")) == [], path


def test_the_player_learns_streamlits_page_from_its_host():
    """player.js draws the same frames on the page, in a file and in a notebook: the page's marks come as data."""
    source = (ROOT / "agent" / "page" / "player" / "player.js").read_text(encoding="utf-8")
    assert [word for word in ("data-testid", "st-key-", "stApp") if word in source] == []


def test_the_page_words_are_found_in_code_and_not_in_prose():
    assert streamlit_page_words('CSS = ".st-key-step button"') == ["st-key-"]
    assert streamlit_page_words('JS = f"<script>{code}</script>"') == ["<script"]
    assert streamlit_page_words('def f():\n    return \'[data-testid="stApp"]\'') == ["data-testid"]
    assert streamlit_page_words('"""A reply holding `<script>` shows as text."""\n# a <script> element') == []
    assert all((ROOT / path).is_file() for path in OWN_PAGE)


def test_importing_the_engine_loads_no_wing():
    import subprocess
    import sys

    code = ("import sys, agent, agent.loop, agent.models.fake\n"
            "print(sorted(m for m in sys.modules if m.split('.')[:2] in "
            "(['agent', 'page'], ['agent', 'real'], ['agent', 'exercise'])))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert loaded.stdout.strip() == "[]"


def test_every_wing_is_a_folder_with_a_package_that_names_its_use():
    for wing in WINGS:
        init = ROOT / "agent" / wing / "__init__.py"
        assert init.is_file(), wing
        assert ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))), f"agent/{wing}/__init__.py says nothing"


def test_the_ground_floor_says_which_is_which():
    """At most ten modules at the top of `agent/`: the request rules and the model stand-ins have rooms of their own."""
    top = sorted(path.name for path in (ROOT / "agent").glob("*.py"))
    assert len(top) <= 10, top
    rooms = {room: sorted(path.stem for path in (ROOT / "agent" / room).glob("*.py") if path.stem != "__init__")
             for room in ("api", "models")}
    assert rooms == {"api": ["accepted", "error_types", "limits", "requests", "rules", "schema", "signing", "watched"],
                     "models": ["fake", "faults", "hand_model", "toy", "toy_clauses", "toy_files", "toy_jobs",
                                "toy_sums", "toy_tasks", "toy_texts"]}


def _widget_keys(at, found: set[str]) -> set[str]:
    from page_support import page_nodes

    found.update(node.key for node in page_nodes(at) if getattr(node, "key", None))
    return found


def test_the_page_keeps_its_state_in_two_session_keys():
    """Every key of the session that is not a widget's own is state the page keeps: the Sandbox and the exercise's
    page (views/session.py), nothing else."""
    from page_support import click, full_page, run

    at = run(full_page(30))
    widgets: set[str] = set()

    def then(target) -> None:
        nonlocal at
        at = run(target)
        _widget_keys(at, widgets)

    _widget_keys(at, widgets)
    at = click(at, "Step")  # the player's
    _widget_keys(at, widgets)
    at.session_state["change_the_past"] = True
    then(at)
    then(at.button(key="fork").click())
    then(at.button(key="step").click())
    then(at.button(key="undo").click())
    for view in ("The loop", "Messages", "Export", "Run"):
        then(at.button_group(key="tab").set_value(view))
    then(at.radio(key="model_choice").set_value("Toy"))
    then(at.button(key="run_to_end").click())
    then(at.radio(key="model_choice").set_value("Real"))
    then(at.switch_page("views/write_your_loop.py"))
    then(at.switch_page("views/sandbox.py"))
    kept = sorted(key for key in at.session_state.keys() if key not in widgets and not key.startswith("$$"))
    print(f"session keys that hold the page's state: {len(kept)}: {', '.join(kept)}")
    assert kept == ["exercise", "sandbox"], kept


def test_only_views_session_names_the_page_states_session_keys():
    """The Sandbox and the exercise's page are reached one way, `views.session`: no other module names their keys."""
    pattern = re.compile(r"""(session_state|\bss)(\.(sandbox|exercise)\b|\[["'](sandbox|exercise)["']\]"""
                         r"""|\.get\(["'](sandbox|exercise)["'])""")
    sources = [*ROOT.joinpath("views").glob("*.py"), ROOT / "sandbox_app.py"]
    named = [f"{path.name}:{number}" for path in sources if path.name != "session.py"
             for number, line in enumerate(path.read_text().splitlines(), 1) if pattern.search(line)]
    assert named == []
    assert pattern.search('ss["sandbox"]') and pattern.search("st.session_state.exercise")  # it sees both forms


WIDGETS = {"button", "toggle", "checkbox", "radio", "selectbox", "multiselect", "slider", "select_slider",
           "text_input", "text_area", "number_input", "file_uploader", "segmented_control", "pills", "expander",
           "tabs", "popover", "download_button", "data_editor", "color_picker", "date_input", "time_input"}
SANDBOX_PAGE = ("sandbox.py", "start_here.py", "change_the_past.py", "run_tabs.py", "page_link.py")


def widgets_without_a_callback(source: str) -> list[str]:
    """Widgets drawn with no callback (or with `on_change="rerun"`): a rerun they begin would say nothing."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in WIDGETS):
            continue
        callback = next((k.value for k in node.keywords if k.arg in ("on_change", "on_click")), None)
        said = callback.value if isinstance(callback, ast.Constant) else None
        if callback is None or said == "rerun" or (said == "ignore" and node.func.attr != "download_button"):
            found.append(f"{node.func.attr} at line {node.lineno}")
    return found


@pytest.mark.parametrize("name", SANDBOX_PAGE)
def test_every_widget_of_the_sandbox_page_has_a_callback(name):
    """views/widget_state.py: a widget's callback says a widget began the run, so the page never takes a click's run
    for the browser's Back. A widget with no callback would be taken for one."""
    assert widgets_without_a_callback(ROOT.joinpath("views", name).read_text()) == []


def test_a_widget_with_no_callback_is_found():
    assert widgets_without_a_callback('st.toggle("x", key="x")\nst.expander("y", on_change="rerun")\n'
                                      'st.button("z", on_click=act)\nst.download_button("d", b"", on_click="ignore")') \
        == ["toggle at line 1", "expander at line 2"]
