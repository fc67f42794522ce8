"""The command line: `python -m agent run | toy | scripts | validate | check-request | serve | check-loop |
export-html | serve-page`.

Bad input never shows a traceback: one line on stderr and exit status 2.
A fake run imports neither streamlit nor anthropic, so it starts fast.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn

from agent.api.requests import API_VERSIONS, BETA_ENDPOINT, LATEST_VERSION, MODES, check_body
from agent.loop import RunState, TurnRecord, run_to_end
from agent.models.fake import FakeModel
from agent.scripts import ScriptError, builtin_names, load_script
from agent.summary import console_lines, printable
from agent.tools import TOOLS
from agent.untrusted import UntrustedInputError, load_json_file, parse_json, read_limited


class UsageError(Exception):
    """Bad input from the person at the terminal: said in one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line, not a usage block
        raise UsageError(f"{self.prog}: {message} (see --help)")


def _tool_list(text: str) -> list[str]:
    names = [name.strip() for name in text.split(",") if name.strip()]
    unknown = [name for name in names if name not in TOOLS]
    if unknown:
        raise argparse.ArgumentTypeError(f"no tool named {unknown[0]!r} (the tools: {', '.join(TOOLS)})")
    return names


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} must be at least 1")
    return value


def cmd_run(args: argparse.Namespace) -> int:
    script = load_script(args.script)
    state = RunState(args.task if args.task is not None else script.task, system=script.system,
                     tool_names=args.tools if args.tools is not None else script.tools,
                     max_turns=args.max_turns or script.max_turns, threads=args.threads)
    run_to_end(state, FakeModel(script, mode=args.mode))
    print("\n".join(console_lines(state)))
    if args.threads:
        print(_bytes_line(state))
    if args.record:
        from agent.real import save_recording

        try:
            save_recording(state, args.record)
        except OSError as exc:
            raise UsageError(f"{args.record}: cannot write it ({exc.strerror or exc})") from None
    return 0


def cmd_toy(args: argparse.Namespace) -> int:
    from agent.models.toy import ToyModel

    state = RunState(args.task, tool_names=args.tools if args.tools is not None else list(TOOLS),
                     max_turns=args.max_turns or 40)
    run_to_end(state, ToyModel(mode=args.mode))
    print("\n".join(console_lines(state)))
    return 0


def _bytes_line(state: RunState) -> str:
    """The bytes each turn's request body held over a thread, against the whole array each time."""
    counted = [record for record in state.records if record.counted]
    threaded = [len(json.dumps(state.request(record)).encode()) for record in counted]
    whole = [len(json.dumps(state.request(TurnRecord(record.turn, record.sent))).encode()) for record in counted]
    return (f"bytes sent each turn over a thread: {', '.join(map(str, threaded))} "
            f"(the whole array each turn: {', '.join(map(str, whole))})")


def _port(text: str) -> int:
    if not text.isdigit() or int(text) > 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number (0 to 65535; 0 picks a free one)")
    return int(text)


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 <= value <= 60:
        raise argparse.ArgumentTypeError(f"{value:g} must be between 0 and 60 seconds")
    return value


def cmd_serve(args: argparse.Namespace) -> int:
    from agent.real import ESTIMATE_NOTE, StandInServer, serve_until_signalled

    script = load_script(args.script)
    try:
        server = StandInServer(script, host=args.host, port=args.port, mode=args.mode, delay=args.delay,
                               log=lambda line: print(line, flush=True))
    except OSError as exc:
        raise UsageError(f"cannot listen on {args.host}:{args.port} ({exc.strerror or exc})") from None
    print(f"Serving the script {script.name!r} ({len(script.replies)} replies) as the Messages API, "
          f"requests checked in {args.mode} mode.")
    print(f"Base URL: {server.base_url}")
    print(f'  e.g. anthropic.Anthropic(base_url="{server.base_url}", api_key="any text")')
    print(f"count_tokens answers with {ESTIMATE_NOTE}. Ctrl-C or SIGTERM stops, letting answers in flight finish "
          f"(up to {args.grace:g} s).", flush=True)
    try:
        return serve_until_signalled(server, args.grace, lambda line: print(line, flush=True))
    finally:
        server.server_close()


def cmd_record(args: argparse.Namespace) -> int:
    from agent.real import RecordingProxy, serve_until_signalled

    if not args.upstream.startswith(("http://", "https://")):
        raise UsageError(f"--upstream must be an http:// or https:// URL, not {args.upstream!r}")
    try:
        proxy = RecordingProxy(args.upstream, Path(args.out), host=args.host, port=args.port)
    except OSError as exc:
        raise UsageError(f"cannot listen on {args.host}:{args.port} ({exc.strerror or exc})") from None
    print(f"Recording: point your agent's base URL at {proxy.base_url}; each request goes on to {args.upstream} "
          f"with your agent's own key, and the exchange is written to {args.out} after every answer (no key, no "
          "header). Ctrl-C stops.", flush=True)
    try:
        return serve_until_signalled(proxy, 10.0, lambda line: print(line, flush=True))
    finally:
        proxy.server_close()


def cmd_serve_page(args: argparse.Namespace) -> int:
    project = Path(__file__).resolve().parent.parent  # the page and its views sit beside the package in a checkout
    if (project / "views" / "launcher.py").is_file() and str(project) not in sys.path:
        sys.path.insert(0, str(project))
    try:
        from views.launcher import THE_PAGE, StreamlitOptionError, serve_page
    except ImportError:
        raise UsageError("serve-page: the page's views/ folder is not here; run it in the project's folder, where "
                         "sandbox_app.py is") from None
    page = Path(args.page) if args.page else THE_PAGE
    if not page.is_file():
        raise UsageError(f"serve-page: {page}: no such page")
    try:
        return serve_page(page, args.streamlit_options)
    except StreamlitOptionError as exc:
        raise UsageError(f"serve-page: {exc}") from None


def cmd_scripts(args: argparse.Namespace) -> int:
    names = builtin_names()
    width = max(map(len, names))
    for name in names:
        print(f"{name:<{width}}  {load_script(name).title}")
    return 0


def cmd_validate(args: argparse.Namespace) -> int:
    script = load_script(args.file)
    print(f"ok: {args.file}: {len(script.replies)} replies")
    return 0


def cmd_check_request(args: argparse.Namespace) -> int:
    if args.file == "-":
        body = parse_json(read_limited(sys.stdin.buffer, "-"), "-")  # "-" names standard input, as typed
    else:
        body = load_json_file(args.file)
    betas = tuple(args.beta or ()) + ((BETA_ENDPOINT,) if args.beta_endpoint else ())
    problems = check_body(body, args.mode, args.api_version, "count_tokens" if args.count_tokens else "create", betas)
    for problem in problems:
        print(f"bad request: {printable(problem, len(problem))}")  # one line, whatever a field name holds
    if not problems:
        print("ok")
    return 1 if problems else 0


def cmd_check_loop(args: argparse.Namespace) -> int:
    from agent.exercise import ExerciseError, Limits, check_loop, format_check, starter_source

    if args.starter:
        print(starter_source(), end="")
        return 0
    if args.file is None:
        raise UsageError("check-loop: name your file with run_agent in it (or --starter prints one to begin from)")
    if not 0 < args.time_limit <= 600:
        raise UsageError(f"check-loop: --time-limit {args.time_limit:g} must be above 0 and at most 600 seconds")
    try:
        source = Path(args.file).read_text(encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"{args.file}: cannot read it ({exc.strerror or exc})") from None
    except UnicodeDecodeError:
        raise UsageError(f"{args.file}: not a UTF-8 text file") from None
    try:
        check = check_loop(source, args.script, Limits(args.time_limit, args.memory_limit), filename=args.file)
    except ExerciseError as exc:
        raise UsageError(str(exc)) from None
    print("\n".join(format_check(check)))
    return 0 if check.passed else 1


def cmd_export_html(args: argparse.Namespace) -> int:
    from agent.page import NotPlayable, frames_of, run_page, sandbox_for  # the page's wing: only for this command

    if args.script != "toy" and args.script not in builtin_names() and not Path(args.script).is_file():
        raise UsageError(f"no built-in script or file named {args.script!r} (see `python -m agent scripts`)")
    try:
        frames = frames_of(sandbox_for(args.script, args.task, args.predict, args.max_turns))
    except NotPlayable as exc:
        raise UsageError(str(exc)) from exc
    page = run_page(frames)
    Path(args.out).write_text(page, encoding="utf-8")
    print(f"wrote {args.out}: {len(frames.frames) - 1} Steps of “{frames.title}”, {len(page.encode()):,} bytes; "
          "open it in any browser, no server needed")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m agent", description="Loop Sandbox: step and check an LLM agent loop.")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    run = commands.add_parser("run", help="run the loop on a FakeModel script and print what it did")
    run.add_argument("script", help="a script file, or a built-in script's name (see `scripts`)")
    run.add_argument("--task", help="the task to start with (the script's replies stay what they are)")
    run.add_argument("--max-turns", type=_positive, help="the turn limit (default: the script's, or 40)")
    run.add_argument("--tools", type=_tool_list, help="the tools the agent is given, e.g. add,word_count")
    run.add_argument("--mode", choices=MODES, default="lesson", help="how strictly requests are checked")
    run.add_argument("--record", metavar="FILE", help="also save the run as a script that replays it")
    run.add_argument("--threads", action="store_true",
                     help="send each turn only the new messages over a message thread, and print the bytes sent")
    run.set_defaults(handler=cmd_run)

    toy = commands.add_parser("toy", help="run the loop on a typed task with the toy model (a few patterns, offline)")
    toy.add_argument("task", help='e.g. "What is 2 + 3 and 10 + 20?" or "What is in my notes?"')
    toy.add_argument("--max-turns", type=_positive, help="the turn limit (default 40)")
    toy.add_argument("--tools", type=_tool_list, help="the tools the agent is given (default: all of them)")
    toy.add_argument("--mode", choices=MODES, default="lesson", help="how strictly requests are checked")
    toy.set_defaults(handler=cmd_toy)

    commands.add_parser("scripts", help="list the built-in scripts").set_defaults(handler=cmd_scripts)

    validate = commands.add_parser("validate", help="check a script file")
    validate.add_argument("file")
    validate.set_defaults(handler=cmd_validate)

    check = commands.add_parser("check-request", help="check a Messages API request body (or a messages list)")
    check.add_argument("file", help="a JSON file, or - for standard input")
    check.add_argument("--mode", choices=MODES, default="lesson")
    check.add_argument("--api-version", choices=API_VERSIONS, default=LATEST_VERSION,
                       help="the anthropic-version whose rules apply (default: what the SDK sends)")
    check.add_argument("--count-tokens", action="store_true", help="check it as a /v1/messages/count_tokens body")
    check.add_argument("--beta", action="append", metavar="NAME",
                       help="a beta the request names in anthropic-beta (repeatable): check it against the beta types")
    check.add_argument("--beta-endpoint", action="store_true",
                       help="it went to /v1/messages?beta=true (each client.beta.messages call), even with no beta")
    check.set_defaults(handler=cmd_check_request)

    loop = commands.add_parser("check-loop", help="check your own run_agent (the exercise) against the scripts")
    loop.add_argument("file", nargs="?", help="your Python file defining run_agent(task, model, max_turns)")
    loop.add_argument("--script", action="append", metavar="NAME",
                      help="check against this script (repeatable; default: every exercise script)")
    loop.add_argument("--starter", action="store_true", help="print a starter file to begin from, and exit")
    loop.add_argument("--time-limit", type=float, default=5.0, metavar="SECONDS",
                      help="time your code may take for each script (default 5)")
    loop.add_argument("--memory-limit", type=_positive, default=512, metavar="MB",
                      help="memory your code's process may use (default 512)")
    loop.set_defaults(handler=cmd_check_loop)

    serve = commands.add_parser("serve", help="serve a script as a local stand-in for the Messages API")
    serve.add_argument("script", help="a script file, or a built-in script's name (see `scripts`)")
    serve.add_argument("--host", default="127.0.0.1", help="the address to listen on (default 127.0.0.1)")
    serve.add_argument("--port", type=_port, default=8765, help="the port (default 8765; 0 picks a free one)")
    serve.add_argument("--mode", choices=MODES, default="lesson", help="how strictly requests are checked")
    serve.add_argument("--delay", type=_seconds, default=0.0,
                       help="seconds to wait before each reply, to watch it stream (default 0)")
    serve.add_argument("--grace", type=_seconds, default=10.0,
                       help="on a stop, seconds to let answers in flight finish (default 10)")
    serve.set_defaults(handler=cmd_serve)
    export = commands.add_parser("export-html", help="write a run as one web page that steps it in any browser")
    export.add_argument("script", help="a built-in script's name, a script file, or toy (with --task)")
    export.add_argument("--task", help="the task to start with (the toy reads it; a script's replies stay the same)")
    export.add_argument("--max-turns", type=_positive, help="the turn limit (default: the script's)")
    export.add_argument("--predict", action="store_true", help="open with Predict each turn on")
    export.add_argument("-o", "--out", required=True, metavar="FILE", help="the HTML file to write")
    export.set_defaults(handler=cmd_export_html)

    record = commands.add_parser("record", help="record an agent's exchange with a real Messages API as a script")
    record.add_argument("--upstream", required=True, help="the API to forward to, e.g. https://api.anthropic.com")
    record.add_argument("--out", required=True, help="the script file to write (rewritten after every answer)")
    record.add_argument("--host", default="127.0.0.1", help="the address to listen on (default 127.0.0.1)")
    record.add_argument("--port", type=_port, default=8766, help="the port (default 8766; 0 picks a free one)")
    record.set_defaults(handler=cmd_record)

    page = commands.add_parser("serve-page", help="serve the page tuned to hold a class; any other option goes to "
                               "`streamlit run`, e.g. --server.port 8601 (docs/hosting.md)")
    page.add_argument("--page", help="the page script (default: sandbox_app.py)")
    page.set_defaults(handler=cmd_serve_page)
    return parser


def _one_line(text: str) -> str:
    return " ".join(text.split())


def main(argv: list[str] | None = None) -> int:
    """Run one command; bad input, or a fault of this program, is one line on stderr and exit status 2."""
    for stream in (sys.stdout, sys.stderr):  # a name or a text the terminal cannot show is escaped, not a crash
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    try:
        parser = build_parser()
        args, rest = parser.parse_known_args(argv)
        if rest and args.handler is not cmd_serve_page:  # only the page's launcher passes options on
            parser.error(f"unrecognized arguments: {' '.join(rest)}")
        args.streamlit_options = rest
        handler: Callable[[argparse.Namespace], int] = args.handler
        return handler(args)
    except (UsageError, ScriptError, UntrustedInputError) as exc:
        print(f"error: {_one_line(str(exc))}", file=sys.stderr)
        return 2
    except (KeyboardInterrupt, BrokenPipeError):
        return 2  # the person stopped it, or the reader of our output went away: nothing left to say
    except Exception as exc:  # a fault of this program, not of the input: still one line, never a traceback
        print(f"error: python -m agent failed unexpectedly ({type(exc).__name__}); please report it with the "
              "command that caused it", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
