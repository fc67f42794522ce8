"""A script's verdict from what the judge saw, without running a learner's file: fast, so mutation testing can run
it for every change to agent/exercise/verdict.py (tests/test_exercise_judge.py judges real files end to end)."""

from agent.exercise.judge import Observation
from agent.exercise.runner import Limits
from agent.exercise.verdict import judge
from agent.loop import RunState, console_lines, run_to_end
from agent.models.fake import FakeModel
from agent.scripts import load_script

TASK = {"role": "user", "content": "What is 2 + 3?"}


def verdict(seen: Observation):
    script = load_script(seen.script)
    state = RunState(script.task, tool_names=list(script.tools), max_turns=script.max_turns)
    run_to_end(state, FakeModel(script))
    return judge(script, state, seen, Limits(), source=""), console_lines(state)


def test_a_loop_that_asked_again_without_running_the_call_is_named_no_mistake_of_its_answer():
    # model.create called twice for one turn: the tool_use reply thrown away, the script's answer taken for its own.
    seen = Observation(script="add_then_answer", requests=[[TASK], [TASK]], stop_reasons=["tool_use", "end_turn"],
                       returned={"type": "str", "text": "7"})
    check, expected = verdict(seen)
    assert (check.verdict, check.first_difference, check.mistake) == ("output", 0, None)
    ran_it = Observation(script="add_then_answer", requests=[[TASK], [TASK]], stop_reasons=["tool_use", "end_turn"],
                         tool_calls=["tool_use"], tool_call_replies=[1], returned={"type": "str", "text": "7"},
                         printed=expected[0] + "\n")
    assert verdict(ran_it)[0].mistake == "conversation_not_kept"  # it ran the call, then sent no more


def test_a_passing_run_says_passed_and_a_hung_one_is_an_endless_loop():
    _, expected = verdict(Observation(script="add_then_answer"))
    seen = Observation(script="add_then_answer", requests=[[TASK], [TASK, {}, {}]],
                       stop_reasons=["tool_use", "end_turn"], tool_calls=["tool_use"], tool_call_replies=[1],
                       returned={"type": "str", "text": "2 + 3 is 5."}, printed=expected[0] + "\n")
    check, _ = verdict(seen)
    assert (check.verdict, check.summary, check.mistake) == ("pass", "passed", None)
    crashed = Observation(script="add_then_answer", ended="crash", message="the process died")
    assert verdict(crashed)[0].mistake is None
    hung = Observation(script="add_then_answer", ended="time_limit", message="still running after 5 s")
    assert verdict(hung)[0].mistake == "endless_loop"


def test_a_request_after_the_answer_is_kept_going_only_after_a_reply_that_ended():
    after_answer = Observation(script="add_then_answer", requests=[[TASK], [TASK, {}, {}], [TASK]],
                               stop_reasons=["tool_use", "end_turn"], exhausted=3)
    assert verdict(after_answer)[0].mistake == "kept_going"
