"""The exercise's wing: a learner writes `run_agent`, and the FakeModel's scripts judge it.

`checker` runs the learner's file against the scripts, in the lesson's order;
`runner` starts the learner's code (`child.py`, a standalone script) walled
off as well as the machine allows; `judge` plays the FakeModel for it from out
of its reach; `verdict` holds each run against the reference loop's and
`mistakes` names the classic mistakes (`mistake_words` says them, `learner_source`
reads the learner's file for them); `check_queue` lets a class's checks
take turns on the machine's cores, and `check_process` runs each in a process
of its own, off the page's interpreter lock; `starter.py` is the file a learner
begins from. Other wings use what this package names here.
"""

from agent.exercise.check_process import iter_check_apart
from agent.exercise.check_queue import CheckQueue, QueueRefused, Ticket, place_words, shared_queue
from agent.exercise.checker import (
    ALLOW_CODE_ENV,
    LESSON_ORDER,
    ExerciseError,
    LoopCheck,
    check_loop,
    code_runner_enabled,
    code_runner_notice,
    exercise_script_names,
    format_check,
    iter_check,
    protection_words,
    reference_run,
    starter_source,
)
from agent.exercise.mistake_words import MISTAKES
from agent.exercise.runner import Limits, Protection, protection
from agent.exercise.verdict import VERDICTS, BadRequest, RaisedError, ScriptCheck

__all__ = ["ALLOW_CODE_ENV", "LESSON_ORDER", "MISTAKES", "VERDICTS", "BadRequest", "CheckQueue", "ExerciseError",
           "Limits", "LoopCheck", "Protection", "QueueRefused", "RaisedError", "ScriptCheck", "Ticket", "check_loop",
           "code_runner_enabled", "code_runner_notice", "exercise_script_names", "format_check", "iter_check",
           "iter_check_apart", "place_words", "protection", "protection_words", "reference_run", "shared_queue",
           "starter_source"]
