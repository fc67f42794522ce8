"""A script's verdict from what the judge saw, without running a learner's file: fast, so mutation testing can run
it for every change to agent/exercise/verdict.py (tests/test_exercise_judge.py judges real files end to end)."""

from agent.exercise.judge import Observation
from agent.exercise.runner import Limits
from agent.exercise.verdict import judge
from agent.loop import RunState, run_to_end
from agent.models.fake import FakeModel
from agent.scripts import load_script
from agent.summary import console_lines

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


def test_a_request_after_a_reply_that_did_not_end_the_turn_says_what_that_reply_was_not_that_the_model_finished():
    def asked_again(name):
        task = {"role": "user", "content": load_script(name).task}
        seen = Observation(script=name, requests=[[task], [task, {}, {}]],
                           stop_reasons=[load_script(name).replies[-1]["stop_reason"]], exhausted=2)
        return verdict(seen)[0]
    cut_off = asked_again("cut_off_reply")
    assert (cut_off.verdict, cut_off.mistake) == ("too_many_requests", "kept_going")
    assert cut_off.summary == ("your loop asked for another reply after the model's reply was cut off at max_tokens "
                               "(request 2; the reference loop sent 1 request)")
    for name, reason in (("refusal", "refusal"), ("pause_turn", "pause_turn"),
                         ("unknown_stop_reason", "budget_exhausted")):
        check = asked_again(name)
        assert check.summary.startswith(f"your loop asked for another reply after a reply that stopped with "
                                        f"stop_reason {reason} (request 2;")
        assert "finished" not in check.summary
    task = {"role": "user", "content": load_script("add_then_answer").task}
    ended = Observation(script="add_then_answer", requests=[[task], [task, {}, {}], [task, {}, {}, {}, {}]],
                        stop_reasons=["tool_use", "end_turn"], tool_call_replies=[1], exhausted=3)
    assert verdict(ended)[0].summary.startswith("your loop asked for another reply after the model had finished")


def test_requests_past_the_turn_limit_are_told_apart_from_the_request_the_script_had_no_reply_for():
    script = load_script("short_leash")  # max_turns 3, five tool_use replies
    task = {"role": "user", "content": script.task}
    requests = [[task] + [{}] * (2 * turn) for turn in range(6)]
    seen = Observation(script="short_leash", requests=requests, stop_reasons=["tool_use"] * 5,
                       tool_calls=["tool_use"] * 5, tool_call_replies=[1, 2, 3, 4, 5], exhausted=6)
    check, _ = verdict(seen)
    assert (check.verdict, check.mistake) == ("too_many_requests", "no_turn_limit")
    assert check.summary == ("your loop went on past the turn limit: max_turns is 3, yet it sent requests 4 and 5, "
                             "which the script still had replies for, then request 6, when the script had no reply "
                             "left; the model never finished (every reply called a tool), and the reference loop "
                             "stopped after 3 requests")
    one_more = Observation(script="short_leash", requests=requests[:5], stop_reasons=["tool_use"] * 4,
                           tool_calls=["tool_use"] * 4, tool_call_replies=[1, 2, 3, 4], exhausted=5)
    assert "yet it sent request 4, which the script still had a reply for, then request 5, when" in \
        verdict(one_more)[0].summary
    caught = Observation(script="short_leash", requests=requests + [requests[-1]] * 2, stop_reasons=["tool_use"] * 5,
                         tool_calls=["tool_use"] * 5, tool_call_replies=[1, 2, 3, 4, 5], exhausted=6)
    assert "then request 6, when the script had no reply left (and 2 more after it);" in verdict(caught)[0].summary
