"""The player in Chromium, as a learner meets it outside the page: an exported run opened from `file://` and
inside another site's `<iframe>`, and a notebook executed, converted and opened. Nothing may reach a network."""

from __future__ import annotations

import functools
import http.server
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from browser_support import free_port
from test_browser import chromium, shot  # noqa: F401  pytest fixtures

ROOT = Path(__file__).resolve().parent.parent


def export(tmp_path: Path, *args: str) -> Path:
    out = tmp_path / "run.html"
    subprocess.run([sys.executable, "-m", "agent", "export-html", *args, "-o", str(out)], check=True, cwd=ROOT,
                   capture_output=True)
    return out


def open_file(chromium, url: str, width: int = 1440):  # noqa: F811
    context = chromium.new_context(viewport={"width": width, "height": 1100})
    page = context.new_page()
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(url)
    return page, requests, errors


def graph_texts(scope) -> list[str]:
    return scope.locator(".lsp-graph svg text").all_text_contents()


@pytest.mark.parametrize("width", [1440, 900])
def test_an_exported_run_steps_to_the_answer_from_a_file_with_no_request(chromium, tmp_path, width):  # noqa: F811
    from playwright.sync_api import expect

    run = export(tmp_path, "add_then_answer", "--predict")
    page, requests, errors = open_file(chromium, run.as_uri(), width)
    expect(page.get_by_role("heading", name="Add two numbers, then answer")).to_be_visible()
    expect(page.locator(".lsp-graph svg")).to_be_visible(timeout=15_000)
    assert "task" in graph_texts(page)
    page.get_by_role("button", name="Step").click()
    expect(page.get_by_text("Turn 1's reply is back. What does the loop do now?")).to_be_visible()
    expect(page.get_by_role("button", name="Step")).to_be_disabled()
    page.keyboard.press("2")  # run the call and ask again: right
    expect(page.get_by_text("How many messages will the next request's")).to_be_visible()
    page.get_by_role("button", name="2. 2").click()  # wrong: the loop appends the reply and one message of results
    expect(page.get_by_text("Predictions: 1 right of 2")).to_be_visible()
    expect(page.get_by_text("Not this time. You said: 2.")).to_be_visible()
    expect(page.locator(".lsp-graph").get_by_text("ask 2")).to_be_visible()
    page.keyboard.press("s")
    page.keyboard.press("1")  # end_turn: return the text
    expect(page.get_by_text("Answer: 2 + 3 is 5.")).to_be_visible()
    expect(page.get_by_text("Predictions: 2 right of 3")).to_be_visible()
    expect(page.locator(".lsp-loop .ls-lit").first).to_be_visible()
    page.keyboard.press("ArrowLeft")
    expect(page.get_by_text("Looking back at turn 1 of 2.")).to_be_visible()
    expect(page.get_by_role("heading", name="Turn 1", exact=True)).to_be_visible()
    page.keyboard.press("End")
    expect(page.get_by_role("heading", name="Turn 2", exact=True)).to_be_visible()
    page.keyboard.press("s")
    expect(page.get_by_text("The loop has finished (2 + 3 is 5.)")).to_be_visible()
    shot(page, f"player-file-{width}.png")
    assert errors == []
    assert requests == [run.as_uri()], "the page asked the network for something"


def test_play_runs_on_by_itself_until_paused(chromium, tmp_path):  # noqa: F811
    from playwright.sync_api import expect

    run = export(tmp_path, "runaway", "--max-turns", "6")
    page, requests, errors = open_file(chromium, run.as_uri())
    page.get_by_role("button", name="Play").click()
    expect(page.get_by_role("heading", name="Turn 2", exact=True)).to_be_visible(timeout=5_000)
    page.keyboard.press(" ")
    expect(page.get_by_role("button", name="Play")).to_be_visible()
    stopped_at = page.locator(".lsp-card h4").inner_text()
    page.wait_for_timeout(1_500)
    assert page.locator(".lsp-card h4").inner_text() == stopped_at, "it went on after Pause"
    page.keyboard.press("e")
    expect(page.get_by_text("stopped: no answer after 6 turns").first).to_be_visible()
    expect(page.get_by_text("messages[1]–[6], one line each")).to_be_visible()  # the latest turns as cards
    assert page.locator(".lsp-messages .ls-msg").count() == 1 + 6
    page.keyboard.press("r")
    expect(page.get_by_role("heading", name="Before the first turn")).to_be_visible()
    assert errors == [] and requests == [run.as_uri()]


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


def serve(folder: Path) -> tuple[str, http.server.ThreadingHTTPServer]:
    port = free_port()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), functools.partial(_Quiet, directory=str(folder)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{port}", server


def test_an_exported_run_steps_inside_another_sites_iframe(chromium, tmp_path):  # noqa: F811
    from playwright.sync_api import expect

    hosted, lesson = tmp_path / "hosted", tmp_path / "lesson"
    hosted.mkdir(), lesson.mkdir()
    export(hosted, "two_file_search").rename(hosted / "run.html")
    run_site, run_server = serve(hosted)
    (lesson / "index.html").write_text(
        f'<!doctype html><h1>Agents in 60 lines</h1><iframe title="The run" src="{run_site}/run.html" width="100%" '
        'height="1000" style="border: none"></iframe>', encoding="utf-8")
    lesson_site, lesson_server = serve(lesson)
    try:
        page, requests, errors = open_file(chromium, f"{lesson_site}/index.html")
        frame = page.frame_locator('iframe[title="The run"]')
        expect(frame.get_by_role("button", name="Step")).to_be_visible()
        frame.get_by_role("button", name="Run to end").click()
        expect(frame.locator(".lsp-outcome")).to_contain_text("Answer:")
        expect(frame.locator(".lsp-graph svg")).to_be_visible(timeout=15_000)
        assert any("read_file" in text for text in graph_texts(frame))
        assert errors == []
        assert requests == [f"{lesson_site}/index.html", f"{run_site}/run.html"]
    finally:
        run_server.shutdown(), lesson_server.shutdown()


def test_a_notebook_executed_and_converted_steps_in_chromium(chromium, tmp_path):  # noqa: F811
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    nbconvert = pytest.importorskip("nbconvert")
    from playwright.sync_api import expect

    notebook = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("# The lesson's reference run"),
        nbformat.v4.new_code_cell('from agent import play\nplay("add_then_answer")'),
        nbformat.v4.new_code_cell('play("toy", task="What is 2 + 3, then shout the answer")')])
    nbclient.NotebookClient(notebook, timeout=120, kernel_name="python3",
                            resources={"metadata": {"path": str(ROOT)}}).execute()
    outputs = [output for cell in notebook.cells if cell.cell_type == "code" for output in cell.outputs]
    assert [o.output_type for o in outputs] == ["execute_result", "execute_result"]
    assert all("text/html" in o.data for o in outputs)
    body, _ = nbconvert.HTMLExporter().from_notebook_node(notebook)
    page_file = tmp_path / "lesson.html"
    page_file.write_text(body, encoding="utf-8")
    page, requests, errors = open_file(chromium, page_file.as_uri())
    players = page.locator(".lsp")
    expect(players).to_have_count(2)
    first, second = players.nth(0), players.nth(1)
    first.get_by_role("button", name="Step").click()
    first.get_by_role("button", name="Step").click()
    expect(first.locator(".lsp-outcome")).to_contain_text("Answer: 2 + 3 is 5.")
    second.get_by_role("button", name="Run to end").click()
    expect(second.locator(".lsp-outcome")).to_contain_text("2 + 3 IS 5.")
    expect(second.locator(".lsp-graph svg")).to_be_visible(timeout=15_000)
    shot(page, "player-notebook.png")
    assert errors == []


@pytest.mark.parametrize(("script", "seed"), [("add_then_answer", 7), ("add_then_answer", 11),
                                            ("two_file_search", 23)])
def test_undo_and_redo_in_the_player_land_where_the_servers_do(chromium, tmp_path, script, seed):  # noqa: F811
    """The player's Undo and Redo of its own actions happen in the browser: after any mix of Steps, answers, looks
    back, Resets, Undos and Redos, it shows what the page's server shows once it takes the same actions up."""
    import random

    from agent.page.frames import frames_of, start_of
    from agent.page.names import Layout
    from agent.page.sandbox import Sandbox
    from agent.page.view import builtin_scripts

    run = export(tmp_path, script, "--predict")
    page, requests, errors = open_file(chromium, run.as_uri())
    page.get_by_role("button", name="Step").wait_for()
    box = Sandbox(builtin=builtin_scripts(), script=script)
    box.set_layout(Layout.START)
    box.set_predicting(True)
    frames = frames_of(box).frames
    rng = random.Random(seed)
    keys = ["s", "s", "e", "r", "z", "z", "y", "1", "2", "3", "ArrowLeft", "End"]
    pressed: list[str] = []
    for _ in range(60):
        asking = page.locator(".lsp-choices").count() > 0
        key = rng.choice([k for k in keys if not (asking and k in ("ArrowLeft", "End"))])
        looked = int(page.get_by_role("slider", name="Turn looked at").input_value())
        word = {"z": "u", "ArrowLeft": f"l{max(0, looked - 1)}", "End": "l"}.get(key, key)
        page.keyboard.press(key)
        pressed.append(key)
        box.take_played(f"p{int(word) - 1}" if word.isdigit() else word)  # what the player hands over
        start = start_of(box)
        frame = frames[start["at"]]
        questions = frame.questions
        open_now = start["asked"] and len(start["picks"]) < len(questions)
        right, answered = start["score"]
        said = f"after the keys {' '.join(pressed)}"
        expect_status = frame.asking_status if open_now else frame.status
        assert page.locator(".lsp-status-text").inner_text() == expect_status, said
        assert page.locator(".lsp-score").inner_text() == (f"Predictions: {right} right of {answered}" if answered
                                                             else "No predictions yet"), said
        if not open_now:
            turn = start["look"] if start["look"] is not None else frame.turn
            assert page.get_by_role("slider", name="Turn looked at").input_value() == str(turn), said
        else:
            prompt = questions[len(start["picks"])].prompt.replace("`", "")  # `code` is drawn as code
            assert prompt in page.locator(".lsp-choices").inner_text(), said
    assert errors == [] and requests == [run.as_uri()]
