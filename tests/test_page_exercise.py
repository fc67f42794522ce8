"""The page's `Write your loop` view, driven through Streamlit's AppTest.

Every Check here really runs the typed loop in the sandbox's own process, as
the page does for a learner. The page decides whether it may run code from the
address it listens on (`server.address`): each test sets that option, and puts
it back after.
"""

import tomllib
from pathlib import Path

import pytest
from page_support import (
    full_page,
    page_text,
)
from streamlit import config
from streamlit.testing.v1 import AppTest
from test_exercise import APPEND_REPLY, CORRECT_LOOP, MISTAKE_CASES, with_bug
from test_page import click, run, texts

from agent.exercise import (
    ALLOW_CODE_ENV,
    MISTAKES,
    check_loop,
    code_runner_notice,
    exercise_script_names,
    starter_source,
)

ROOT = Path(__file__).resolve().parent.parent
VIEW = "views/write_your_loop.py"  # the view's page script, as st.navigation names it


@pytest.fixture
def listening_on(monkeypatch):
    """Set the address the page believes it serves on; the operator's switch starts off."""
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv(ALLOW_CODE_ENV, raising=False)
    before = config.get_option("server.address")

    def set_address(address):
        config.set_option("server.address", address)

    yield set_address
    config.set_option("server.address", before)


def open_view(listening_on, address="127.0.0.1") -> AppTest:
    listening_on(address)
    at = run(full_page(60))
    return run(at.switch_page(VIEW))


@pytest.fixture
def at(listening_on) -> AppTest:
    return open_view(listening_on)


def check_button(at: AppTest):
    return next(b for b in at.button if b.label == "Check my loop")


def check(at: AppTest, source: str) -> AppTest:
    run(at.text_area(key="loop_code").input(source))
    return click(at, "Check my loop")


def open_expanders(at: AppTest) -> list:
    return [e for e in at.expander if e.proto.expanded]


def html_in(node) -> str:
    return "".join(h.proto.body for h in node.get("html"))


def test_the_view_opens_with_the_starter_in_the_editor(at):
    assert at.text_area(key="loop_code").value == starter_source()
    assert at.title[0].value == "Write your loop"
    assert not check_button(at).disabled and not at.warning
    assert [b.proto.label for b in at.get("download_button")] == ["Download my_loop.py"]
    assert not at.expander and not at.success and not at.error  # nothing checked yet
    assert "python -m agent check-loop my_loop.py" in texts(at.sidebar.caption)


def test_the_starter_itself_is_checked_and_every_script_fails_by_name(at):
    click(at, "Check my loop")
    assert at.error[0].value.startswith(f"**0 of {len(exercise_script_names())} scripts pass.**")
    assert all("not a string" in e.label for e in at.expander)


def test_a_correct_loop_passes_every_script(at):
    check(at, CORRECT_LOOP)
    names = exercise_script_names()
    assert at.success[0].value.startswith(f"**{len(names)} of {len(names)} scripts pass: well done.**")
    assert [e.label.split("`")[1] for e in at.expander] == names
    assert all(e.label.endswith(":green[pass]") for e in at.expander) and not open_expanders(at)
    reference = next(e for e in at.expander if "`add_then_answer`" in e.label)
    assert reference.markdown[0].value.split("```")[1].strip().splitlines() == [
        'turn 1: add {"a": 2, "b": 3} -> 5', "result: 2 + 3 is 5.", "messages sent each turn: 1, 3"]
    assert not at.error


def test_a_loop_that_does_not_append_the_reply_fails_naming_the_mistake(at):
    broken = with_bug((APPEND_REPLY, ""))
    expected = check_loop(broken)  # the same check, run apart from the page
    failing = sum(not result.passed for result in expected.scripts)
    assert failing and expected.scripts[0].script == "add_then_answer"
    check(at, broken)
    assert at.error[0].value.startswith(f"**{expected.summary}.** The first of {failing} failing scripts is open")
    [shown] = open_expanders(at)
    assert "`add_then_answer`" in shown.label and shown.label.endswith(
        ":red[**bad request**] · :gray[reply not appended]")
    assert shown.markdown[0].value.startswith("**Request 2 was refused**, as the real API would refuse it: "
                                              "messages: roles must alternate")
    assert "(`reply_not_appended`)" in shown.info[0].value
    assert MISTAKES["reply_not_appended"].split(".")[0] in shown.info[0].value
    pair = html_in(shown)
    refused = pair[pair.index('<div class="lx-bad">'):]
    assert refused.index("messages[1]") < refused.index("refused here") < refused.index("toolu_01")
    assert "The reference loop sent <span>request 2, 3 messages" in pair
    assert not at.exception


def test_a_loop_whose_output_differs_shows_both_outputs_line_against_line(at):
    check(at, with_bug(*MISTAKE_CASES["wrong_limit_message"][0]))
    [shown] = open_expanders(at)
    assert "`runaway`" in shown.label and "wrong limit message" in shown.label
    table = html_in(shown)
    assert "The reference loop prints" in table and "Your loop printed" in table
    assert "result: stopped: no answer after 40 turns" in table and "result: stopped: too many turns" in table


def test_an_exception_shows_the_line_of_the_learners_code(at):
    source = with_bug(*MISTAKE_CASES["not_a_string"][0]).replace("            return reply\n",
                                                                  "            return reply['text']\n")
    check(at, source)
    shown = open_expanders(at)[0]
    assert "raised an exception" in shown.label
    line = source.splitlines().index("            return reply['text']") + 1
    assert f"KeyError: 'text' at line {line}" in shown.markdown[0].value
    lit = html_in(shown)[html_in(shown).index("ls-anchor"):]
    assert lit.startswith(f'ls-anchor"><span class="ls-ln">{line}</span>') and "◀ KeyError raised here" in lit
    assert not at.exception


def test_a_syntax_error_is_said_in_words_with_its_line(at):
    check(at, "def run_agent(task, model, max_turns):\n    x = (\n    return 1\n")
    assert at.error[0].value == "**Not checked:** line 2: '\\(' was never closed"
    assert "◀ line 2" in html_in(at) and not at.expander
    assert not at.exception


def test_the_code_survives_reruns_and_a_visit_to_the_other_view(at):
    mine = with_bug((APPEND_REPLY, ""))
    check(at, mine)
    run(at.switch_page("views/sandbox.py"))
    click(at, "Step")
    assert at.session_state["sandbox"].run.turn == 1
    run(at.switch_page(VIEW))
    assert at.text_area(key="loop_code").value == mine
    assert at.error[0].value.startswith(f"**{check_loop(mine).summary}.**")  # the last check is still shown
    run(at)
    assert at.text_area(key="loop_code").value == mine


def test_changing_the_code_after_a_check_says_the_check_is_older(at):
    check(at, CORRECT_LOOP)
    run(at.text_area(key="loop_code").input(CORRECT_LOOP + "\n# a comment\n"))
    assert "You have changed the code since this check" in page_text(at)
    click(at, "Check my loop")
    assert "You have changed the code" not in page_text(at)


def test_start_over_puts_the_starter_back(at):
    check(at, CORRECT_LOOP)
    click(at, "Replace my code with the starter")
    assert at.text_area(key="loop_code").value == starter_source()
    assert not at.expander and not at.success


@pytest.fixture
def no_bubblewrap(monkeypatch):
    """The page as it is on a machine where bubblewrap cannot run."""
    from agent.exercise import Protection, checker

    monkeypatch.setattr(checker, "protection", lambda: Protection("process limits", "limits only"))


def test_the_runner_is_off_on_any_other_address_with_a_notice(listening_on, no_bubblewrap):
    at = open_view(listening_on, "0.0.0.0")
    assert at.warning[0].value == code_runner_notice("0.0.0.0")
    assert f"{ALLOW_CODE_ENV}=1" in at.warning[0].value
    assert check_button(at).disabled
    run(at.text_area(key="loop_code").input(CORRECT_LOOP))  # the editor and the download still work
    assert at.text_area(key="loop_code").value == CORRECT_LOOP
    assert [b.proto.label for b in at.get("download_button")] == ["Download my_loop.py"]


def test_a_check_that_arrives_while_the_runner_is_off_runs_nothing(listening_on, no_bubblewrap):
    at = open_view(listening_on)
    run(at.text_area(key="loop_code").input(CORRECT_LOOP))
    listening_on("192.168.1.20")  # the button was drawn enabled; the page decides again when the click arrives
    run(check_button(at).click())
    assert not at.expander and at.session_state["exercise"].check is None
    assert at.warning[0].value == code_runner_notice("192.168.1.20")


def test_the_operator_can_turn_the_runner_on_for_any_address(listening_on, monkeypatch, no_bubblewrap):
    monkeypatch.setenv(ALLOW_CODE_ENV, "1")
    at = open_view(listening_on, "0.0.0.0")
    assert not at.warning and not check_button(at).disabled
    check(at, CORRECT_LOOP)
    assert "scripts pass: well done" in at.success[0].value


def test_the_page_serves_on_loopback_unless_told_otherwise():
    settings = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert settings["server"]["address"] == "127.0.0.1"


def test_with_bubblewrap_the_runner_is_on_for_any_address_and_the_page_says_so(listening_on):
    from agent.exercise import protection

    if protection().kind != "bubblewrap":
        pytest.skip(protection().words)
    at = open_view(listening_on, "0.0.0.0")
    assert not at.warning and not check_button(at).disabled
    assert "Sandbox: bubblewrap." in texts(at.sidebar.caption)
    check(at, CORRECT_LOOP)
    assert "scripts pass: well done" in at.success[0].value


def test_the_scripts_are_listed_in_the_lessons_order_starting_with_the_reference_run(at):
    check(at, CORRECT_LOOP)
    shown = [e.label.split("`")[1] for e in at.expander]
    assert shown == exercise_script_names() and shown[0] == "add_then_answer"


def test_the_editor_indents_with_tab_in_the_page_itself(at):
    scripts = [h.proto.body for h in at.get("html") if "tabIndents" in h.proto.body]
    assert scripts and "Shift" not in at.text_area(key="loop_code").help[:0]
    assert "Tab indents" in at.text_area(key="loop_code").help
    assert "https://" not in scripts[0]  # nothing fetched from anywhere


def test_a_check_stopped_midway_shows_what_it_had_as_cancelled(at):
    from agent.exercise import LoopCheck, check_loop
    from agent.page.exercise_page import CheckShown, ExercisePage

    partial = LoopCheck(check_loop(CORRECT_LOOP, ["add_then_answer", "refusal"]).scripts)
    at.session_state["exercise"] = ExercisePage(check=CheckShown(CORRECT_LOOP, partial, cancelled=True))
    run(at)
    assert at.warning[0].value.startswith("**Check cancelled** after 2 scripts.")
    assert [e.label.split("`")[1] for e in at.expander] == ["add_then_answer", "refusal"]
