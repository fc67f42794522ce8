"""What a learner's file says, read from its syntax tree and never run: the line that decided to ask the model
again, and whether the loop keeps a turn limit of its own instead of the max_turns it is given.

The evidence `mistakes.py` needs from the code itself, beside what the judge saw it do.
"""

from __future__ import annotations

import ast
from typing import Any


def decision_line(source: str, ran: list[int]) -> int | None:
    """Of the learner's lines that ran after the model's last reply, the one that decided to ask again: the
    first `if` or `while` test, else the last line (the call to model.create)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return ran[-1] if ran else None
    tests = {node.lineno for node in ast.walk(tree) if isinstance(node, ast.If | ast.While)}
    return next((line for line in ran if line in tests), ran[-1] if ran else None)


def own_turn_limit(source: str) -> bool:
    """Whether the file bounds its loop by a number of its own rather than max_turns: run_agent never reads the
    max_turns it is given (or sets it to a number first), and a `range(...)` or a comparison uses a whole number
    above 1, written out or held in a name set to one."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    function = next((node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
                     and node.name == "run_agent"), None)
    if function is None or len(function.args.args) < 3:
        return False
    given = function.args.args[2].arg
    numbers = _names_set_to_numbers(tree)
    # Set to a number in the body; its own default (`max_turns=40`) is never used, the check passes it.
    if any(given in _names_set_to_numbers(statement) for statement in function.body):
        return True
    if any(isinstance(node, ast.Name) and node.id == given and isinstance(node.ctx, ast.Load)
           for node in ast.walk(function)):
        return False

    def bound(node: ast.AST) -> bool:
        return isinstance(node, ast.Constant) and _above_one(node.value) or (
            isinstance(node, ast.Name) and node.id in numbers)

    for node in ast.walk(tree):
        if isinstance(node, ast.Compare) and any(bound(side) for side in [node.left, *node.comparators]):
            return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "range" \
                and any(bound(arg) for arg in node.args):
            return True
    return False


def _names_set_to_numbers(tree: ast.AST) -> set[str]:
    """Names given a whole number above 1 anywhere in the tree: by assignment or as a parameter's default."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign | ast.AnnAssign) and isinstance(node.value, ast.Constant) \
                and _above_one(node.value.value):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(target.id for target in targets if isinstance(target, ast.Name))
        if isinstance(node, ast.arguments):
            positional = node.posonlyargs + node.args
            pairs = [*zip(positional[len(positional) - len(node.defaults):], node.defaults, strict=True),
                     *zip(node.kwonlyargs, node.kw_defaults, strict=True)]
            names.update(arg.arg for arg, default in pairs
                         if isinstance(default, ast.Constant) and _above_one(default.value))
    return names


def _above_one(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 1


def loop_line(source: str, ran: list[int]) -> int | None:
    """Of the learner's lines that ran before a request, the header of the innermost loop around the request
    that went round again to send it (a `while` or `for` line that ran); None when no loop's header ran."""
    if not ran:
        return None
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    sent_from, headers = ran[-1], set(ran)
    loops = [node for node in ast.walk(tree) if isinstance(node, ast.While | ast.For | ast.AsyncFor)
             and node.lineno in headers and node.lineno < sent_from <= (node.end_lineno or node.lineno)]
    return max(loops, key=lambda node: node.lineno).lineno if loops else None


def whole_numbers(source: str) -> set[int]:
    """The whole numbers above 1 written in the file (a cap or a budget the loop may stop at)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return set()
    return {node.value for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, int) and _above_one(node.value)}
