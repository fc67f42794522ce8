"""Starting the page and a browser for browser tests and benchmarks.

`SandboxServer` runs `streamlit run sandbox_app.py` on 127.0.0.1 and a free
port and waits for `/_stcore/health`; `ClassSet` runs deploy/start-class.sh (K
of them behind HAProxy); `launch_chromium` starts Debian's Chromium
(/usr/bin/chromium) through Playwright. Playwright's own browser download is
never used.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# Debian's Chromium; CHROMIUM_PATH points elsewhere (and lets a test of the no-browser case name a missing one).
CHROMIUM = Path(os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium"))
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]
INSTALL_HINT = "Chromium is needed for the browser tests: apt-get install chromium (it lands at /usr/bin/chromium)"


PANEL = "Change the past: fork at a turn, inject a fault, be the model"
"""The panel's summary: while it is open, or once the run has a fork, the page draws and steps the run itself."""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def consecutive_free_ports(count: int) -> int:
    """The first of `count` ports in a row that are free on 127.0.0.1 now."""
    for _ in range(50):
        first = free_port()
        held = []
        try:
            for port in range(first, first + count):
                sock = socket.socket()
                held.append(sock)
                sock.bind(("127.0.0.1", port))
            return first
        except OSError:
            continue
        finally:
            for sock in held:
                sock.close()
    raise RuntimeError(f"no {count} free ports in a row")


class SandboxServer:
    """`streamlit run sandbox_app.py` (or, `tuned`, `python -m agent serve-page`) on a free port of 127.0.0.1,
    stopped by `stop()` (or `with`)."""

    def __init__(self, app: Path = ROOT / "sandbox_app.py", python: str = sys.executable,
                 options: Sequence[str] = (), streamlit: Sequence[str] | None = None,
                 env: dict[str, str] | None = None, tuned: bool = False) -> None:
        """`options` go to `streamlit run` after the usual ones; `streamlit` is how python starts Streamlit (or,
        `tuned`, the launcher)."""
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = ROOT / "test-artifacts" / f"streamlit-{self.port}.log"
        self.log.parent.mkdir(exist_ok=True)
        starter = streamlit or (("-m", "agent") if tuned else ("-m", "streamlit"))
        serve = ["serve-page", "--page", str(app)] if tuned else ["run", str(app)]
        command = [python, *starter, *serve, "--server.headless", "true",
                   "--server.address", "127.0.0.1", "--server.port", str(self.port),
                   "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none",
                   "--global.developmentMode", "false", *options]
        env = {**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})}
        env.pop("ANTHROPIC_API_KEY", None)  # the page under test never sees a real key
        with self.log.open("wb") as log:
            self.process = subprocess.Popen(command, cwd=Path(app).parent, stdout=log, stderr=subprocess.STDOUT,
                                            env=env)

    def wait_until_healthy(self, timeout: float = 60) -> None:
        wait_healthy(self.url, self.process, time.monotonic() + timeout, lambda: self.log.read_text()[-2000:])

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def __enter__(self) -> SandboxServer:
        try:
            self.wait_until_healthy()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *_: Any) -> None:
        self.stop()


class ClassSet:
    """deploy/start-class.sh: K processes of the page behind HAProxy, on free loopback ports; `stop()` ends it
    and all it started. `options` go to every `streamlit run`; `streamlit` is how python starts the launcher."""

    def __init__(self, k: int, run_dir: Path, app: Path = ROOT / "sandbox_app.py", options: Sequence[str] = (),
                 streamlit: Sequence[str] = ("-m", "agent"), env: dict[str, str] | None = None) -> None:
        self.run_dir = run_dir
        self.proxy_port, first = free_port(), consecutive_free_ports(k)
        env = {**os.environ, "K": str(k), "APP": str(app), "PROXY_PORT": str(self.proxy_port),
               "BACKEND_PORT": str(first), "RUN_DIR": str(run_dir),
               "SERVE_PAGE": " ".join([sys.executable, *streamlit, "serve-page"]),
               **(env or {})}
        env.pop("ANTHROPIC_API_KEY", None)  # the page under test never sees a real key
        self.script = subprocess.Popen([str(ROOT / "deploy" / "start-class.sh"), *options], env=env,
                                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
        self.url = f"http://127.0.0.1:{self.proxy_port}"
        self.backends = {f"st{i + 1}": f"http://127.0.0.1:{first + i}" for i in range(k)}

    def wait_until_healthy(self, timeout: float = 90) -> None:
        deadline = time.monotonic() + timeout
        for url in [*self.backends.values(), self.url]:
            wait_healthy(url, self.script, deadline, lambda: self.script.stdout.read().decode()[-2000:])

    def pid_of(self, server: str) -> int:
        return int((self.run_dir / f"{server}.pid").read_text())

    @property
    def pids(self) -> list[int]:
        return [self.pid_of(server) for server in self.backends]

    def stop(self) -> None:
        if self.script.poll() is None:
            self.script.send_signal(signal.SIGTERM)  # the script stops its processes and HAProxy
            try:
                self.script.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.script.pid, signal.SIGKILL)
                self.script.wait()
        self.script.stdout.close()


def healthy(url: str) -> bool:
    """Whether `url` answers Streamlit's /_stcore/health now."""
    try:
        with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
            return response.status == 200
    except OSError:
        return False


def wait_healthy(url: str, process: subprocess.Popen, deadline: float, said: Callable[[], str]) -> None:
    """Until `url` is healthy; at once, with what the process `said`, if it exits first; by `deadline`
    (monotonic) at the latest."""
    while not healthy(url):
        if process.poll() is not None:
            raise RuntimeError(f"{process.args} exited with {process.returncode}: {said()}")
        if time.monotonic() > deadline:
            raise TimeoutError(f"{url} did not answer /_stcore/health in time")
        time.sleep(0.2)


def launch_chromium(playwright: Any) -> Any:
    """Debian's Chromium through Playwright, headless, drawing scrollbars as a desktop browser does.

    Playwright hides them in headless mode (`--hide-scrollbars`); kept, the tests can tell a diagram that
    scrolls visibly from one that is simply cut off, and the screenshots show what a person sees.
    """
    return playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS,
                                      ignore_default_args=["--hide-scrollbars"])


def status_line(page: Any) -> Any:
    """The status line under Step: the page's own, or the player's where it plays the run."""
    return page.locator('[data-testid="stProgress"], .lsp-status-text').first


def full_page(url: str) -> str:
    """The sandbox with every control, for a URL that names no screen: a bare first visit is Start here."""
    return url if "?" in url or url.rstrip("/").endswith("write-your-loop") else f"{url.rstrip('/')}/?controls=all"


def open_page(browser: Any, url: str, width: int = 1440, height: int = 1300, on_page: Any = None) -> Any:
    """A new page (its own browser context, so its own Streamlit session) with the sandbox loaded.

    `on_page` is called with the page before it loads, e.g. to listen to its websocket from the start.
    """
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    if on_page is not None:
        on_page(page)
    page.goto(full_page(url))
    wait_for_idle(page)
    page.get_by_role("button", name="Step").wait_for(timeout=30_000)
    return page


# Whether the app has said it is not running for `quiet` ms: the time of its last change of state is kept by an
# observer, so a run that started and ended between two looks still counts.
QUIET_JS = """(quiet) => {
  const app = document.querySelector('[data-testid="stApp"]');
  if (!app) return false;
  if (!window.__sandboxTestQuiet) {
    const watched = window.__sandboxTestQuiet = {since: performance.now()};
    new MutationObserver(() => { watched.since = performance.now(); })
      .observe(app, {attributes: true, attributeFilter: ["data-test-script-state"]});
  }
  return app.getAttribute("data-test-script-state") === "notRunning"
    && performance.now() - window.__sandboxTestQuiet.since >= quiet;
}"""


# Whether nothing on the page has moved for `still` ms: the time of the last layout shift is kept by an observer
# (an expander opening slides what is below it for a while, frame by frame).
STILL_JS = """(still) => {
  if (!window.__sandboxTestMoved) {
    const moved = window.__sandboxTestMoved = {at: performance.now()};
    new PerformanceObserver((list) => { for (const entry of list.getEntries()) moved.at = performance.now(); })
      .observe({type: "layout-shift"});
  }
  return performance.now() - window.__sandboxTestMoved.at >= still;
}"""


def wait_for_still(page: Any, timeout: float = 10_000, still: float = 300) -> None:
    """Until nothing on the page has moved for `still` ms: a click aimed at a button while it slides lands on
    whatever was under the pointer."""
    page.wait_for_function(STILL_JS, arg=still, polling=50, timeout=timeout)


def wait_for_idle(page: Any, timeout: float = 30_000, quiet: float = 200) -> None:
    """Until Streamlit has finished running the script for this page, and started no other run for `quiet` ms:
    a click's run may start a moment after the click (a busy machine), and the page is redrawn when it ends."""
    page.wait_for_function(QUIET_JS, arg=quiet, polling=50, timeout=timeout)


# Each character drawn in the element's own font beside characters no font has (unassigned code points): the
# same pixels mean the browser found no glyph for it and drew the empty box.
UNDRAWABLE_JS = """(elements) => {
  const found = new Set();
  for (const element of elements) {
    const style = getComputedStyle(element);
    const font = `${style.fontStyle} ${style.fontWeight} 32px ${style.fontFamily}`;
    const draw = (character) => {
      const canvas = document.createElement("canvas");
      canvas.width = canvas.height = 64;
      const context = canvas.getContext("2d");
      context.font = font;
      context.textBaseline = "top";
      context.fillText(character, 4, 4);
      return context.getImageData(0, 0, 64, 64).data.join(",");
    };
    const nothing = new Set(["\\u0378", "\\u{10FFFD}"].map(draw));
    for (const character of new Set(Array.from(element.textContent))) {
      if (character.trim() && nothing.has(draw(character))) found.add(character);
    }
  }
  return Array.from(found);
}"""


def undrawable_characters(locator: Any) -> list[str]:
    """The characters in `locator`'s elements that the browser cannot draw in their font or any fallback."""
    return locator.evaluate_all(UNDRAWABLE_JS)
