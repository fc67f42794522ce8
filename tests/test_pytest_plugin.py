"""The pytest plugin from outside: another project's suite, run in a subprocess, finds `stand_in_api` through the
installed package's entry point, and a test whose agent swallows a 400 fails with the API's own words."""

import re
import subprocess
import sys
import textwrap
from pathlib import Path

TEST_YOUR_AGENT = Path(__file__).resolve().parent.parent / "docs" / "test-your-agent.md"

SWALLOWING_AGENT = '''
    import anthropic
    from anthropic import beta_tool


    @beta_tool
    def add(a: float, b: float) -> str:
        """Add two numbers."""
        return str(a + b)


    def my_agent(client, task):
        """An agent that hides a refused request from its caller: it answers None."""
        try:
            for message in client.beta.messages.tool_runner(model="claude-sonnet-5", max_tokens=256, tools=[add],
                                                            messages=[{"role": "user", "content": task}]):
                pass
            return message
        except anthropic.BadRequestError:
            return None


    def test_a_good_task(stand_in_api):
        api = stand_in_api("add_then_answer", in_process=IN_PROCESS)
        assert my_agent(api.client(max_retries=0), "What is 2 + 3?") is not None


    def test_a_blank_task(stand_in_api):
        api = stand_in_api("add_then_answer", in_process=IN_PROCESS)
        my_agent(api.client(max_retries=0), "")  # the agent swallows the 400: the test body alone would pass
'''


def run_pytest(directory, *args):
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", *args], cwd=directory,
                          capture_output=True, text=True, timeout=180)


def another_project(tmp_path, in_process):
    (tmp_path / "test_agent.py").write_text(f"IN_PROCESS = {in_process}\n" + textwrap.dedent(SWALLOWING_AGENT))
    return tmp_path


def test_the_fixture_is_listed_by_pytest_fixtures(tmp_path):
    (tmp_path / "test_nothing.py").write_text("def test_nothing():\n    pass\n")
    listed = run_pytest(tmp_path, "--fixtures")
    assert "fixtures defined from agent.real.pytest_plugin" in listed.stdout, listed.stdout[-2000:]
    assert "stand_in_api -- " in listed.stdout


def test_a_swallowed_bad_request_fails_the_test_in_the_apis_words(tmp_path):
    for in_process in (False, True):
        done = run_pytest(another_project(tmp_path, in_process), "-rf")
        assert done.returncode == 1, done.stdout[-3000:]
        assert "1 failed, 1 passed" in done.stdout
        assert "FAILED test_agent.py::test_a_blank_task - AssertionError: the stand-in Messag" in done.stdout
        assert ("AssertionError: the stand-in Messages API ('add_then_answer') refused 1 request that the agent "
                "sent:") in done.stdout
        assert ("request 1 (POST /v1/messages): 400 invalid_request_error: messages.0: all messages must have "
                "non-empty content except for the optional final assistant message") in done.stdout


def test_the_docs_examples_pass_as_another_projects_tests(tmp_path):
    section = TEST_YOUR_AGENT.read_text().split("# Test your own agent against the stand-in")[1].split("\n#")[0]
    examples = re.findall(r"```python\n(.*?)```", section, re.S)
    assert len(examples) == 2
    for number, example in enumerate(examples):
        (tmp_path / f"test_example_{number}.py").write_text(example)
    done = run_pytest(tmp_path)
    assert done.returncode == 0 and "2 passed" in done.stdout, done.stdout[-3000:]
