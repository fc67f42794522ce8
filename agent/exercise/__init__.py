"""The exercise's wing: a learner writes `run_agent`, and the FakeModel's scripts judge it.

`checker` runs the learner's file against the scripts and compares it with the
reference loop; `mistakes` names the classic mistakes; `runner` starts the
learner's code in a process of its own (`child`), with limits; `starter.py` is
the file a learner begins from. Other wings use what this package names here.
"""

from agent.exercise.checker import (
    ALLOW_CODE_ENV,
    VERDICTS,
    BadRequest,
    ExerciseError,
    LoopCheck,
    ScriptCheck,
    check_loop,
    code_runner_enabled,
    code_runner_notice,
    exercise_script_names,
    format_check,
    reference_run,
    starter_source,
)
from agent.exercise.mistakes import MISTAKES
from agent.exercise.runner import Limits

__all__ = ["ALLOW_CODE_ENV", "MISTAKES", "VERDICTS", "BadRequest", "ExerciseError", "Limits", "LoopCheck",
           "ScriptCheck", "check_loop", "code_runner_enabled", "code_runner_notice", "exercise_script_names",
           "format_check", "reference_run", "starter_source"]
