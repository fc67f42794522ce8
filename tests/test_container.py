"""deploy/Containerfile built and run: a base image made from Debian's own packages (mmdebstrap, podman import:
no image registry is reachable here), the project built on it, started, stepped over Streamlit's websocket, and a
check of the exercise run inside it under bubblewrap with the security settings the Containerfile documents.

Needs podman, mmdebstrap and runc (Debian's packages; .ci/run installs them). Without them the tests skip and say
how to get them; under CI=true they fail. The runtime flags `RUNTIME` are what these machines need: crun cannot set
the container's rlimits here (`setrlimit RLIMIT_NOFILE: Operation not permitted`), runc can, below the host's.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import subprocess
import time
import urllib.request
import uuid

import pytest
from browser_support import ROOT
from streamlit_session import StreamlitSession

BASE = "localhost/loop-sandbox-base:bookworm"
IMAGE = "localhost/loop-sandbox:test"
RUNTIME = ["--runtime", "/usr/sbin/runc", "--ulimit", "nofile=1024:1024", "--ulimit", "nproc=1024:1024"]
BUBBLEWRAP_SETTINGS = ["--security-opt", "seccomp=unconfined", "--security-opt", "apparmor=unconfined",
                       "--security-opt", "unmask=/proc/*"]  # as the Containerfile's header says
HOST_CERTIFICATES = "/etc/ssl/certs/ca-certificates.crt"  # the proxy's re-signing CA, for pip inside the build


def missing_tools() -> list[str]:
    wanted = {"podman": "podman", "mmdebstrap": "mmdebstrap", "/usr/sbin/runc": "runc"}
    return [package for tool, package in wanted.items() if not (shutil.which(tool) or os.path.exists(tool))]


def run(*command: str, timeout: float = 900) -> subprocess.CompletedProcess:
    done = subprocess.run(list(command), capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{' '.join(command[:3])} failed ({done.returncode}):\n{done.stdout[-3000:]}\n" \
                                 f"{done.stderr[-3000:]}"
    return done


@pytest.fixture(scope="module")
def image(tmp_path_factory) -> str:
    if missing := missing_tools():
        words = f"not installed: {', '.join(missing)} (apt-get install {' '.join(missing)})"
        if os.environ.get("CI"):
            pytest.fail(words)
        pytest.skip(words)
    if subprocess.run(["podman", "image", "exists", BASE]).returncode != 0:
        tar = tmp_path_factory.mktemp("base") / "bookworm.tar"
        run("mmdebstrap", "--variant=apt", "--include=python3,python3-venv,bubblewrap,ca-certificates",
            "bookworm", str(tar))
        run("podman", "import", str(tar), BASE)
    certificates = ["-v", f"{HOST_CERTIFICATES}:{HOST_CERTIFICATES}:ro"] if os.path.exists(HOST_CERTIFICATES) else []
    run("podman", "build", *RUNTIME, "--network", "host", *certificates, "--build-arg", f"BASE={BASE}",
        "-f", str(ROOT / "deploy" / "Containerfile"), "-t", IMAGE, str(ROOT))
    return IMAGE


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Container:
    def __init__(self, image: str, settings: list[str]) -> None:
        self.name = f"loop-sandbox-test-{uuid.uuid4().hex[:8]}"
        self.port = free_port()
        run("podman", "run", "-d", "--name", self.name, *RUNTIME, *settings, "-p", f"127.0.0.1:{self.port}:8501",
            image, timeout=120)
        self.url = f"http://127.0.0.1:{self.port}"

    def wait_healthy(self, seconds: float = 90) -> None:
        deadline = time.monotonic() + seconds
        while True:
            try:
                with urllib.request.urlopen(f"{self.url}/_stcore/health", timeout=2) as answer:
                    if answer.read() == b"ok":
                        return
            except OSError:
                pass
            if time.monotonic() > deadline:
                logs = subprocess.run(["podman", "logs", self.name], capture_output=True, text=True).stdout
                raise AssertionError(f"the container's page did not answer /_stcore/health in {seconds:g} s:\n{logs}")
            time.sleep(0.5)

    def exec(self, *command: str) -> str:
        return run("podman", "exec", self.name, *command, timeout=120).stdout

    def remove(self) -> None:
        subprocess.run(["podman", "rm", "-f", self.name], capture_output=True, timeout=60)


@pytest.fixture(scope="module")
def container(image):
    started = Container(image, BUBBLEWRAP_SETTINGS)
    try:
        started.wait_healthy()
        yield started
    finally:
        started.remove()


def test_the_container_serves_the_page_and_a_step_goes_through(container):
    with urllib.request.urlopen(f"{container.url}/", timeout=10) as answer:
        assert b"<html" in answer.read().lower()

    async def learner() -> list[str]:
        session = await StreamlitSession.open(container.url)
        try:
            outcome = await session.rerun(*session.step())
            return outcome.texts
        finally:
            await session.close()

    texts = asyncio.run(learner())
    assert any(text.startswith("turn 1 of 40") for text in texts), texts[:20]


def test_a_check_inside_the_container_runs_under_bubblewrap(container):
    said = container.exec("python3", "-m", "agent", "check-loop", "examples/correct_loop.py")
    assert said.splitlines()[0].startswith("sandbox: bubblewrap"), said
    assert "14 of 14 scripts pass" in said or "scripts pass: well done" in said, said
    user = container.exec("id", "-u").strip()
    assert user == "10001"  # the page runs as the learner user, not root


def test_without_the_documented_settings_bubblewrap_cannot_run_and_the_check_says_so(image):
    bare = Container(image, [])
    try:
        bare.wait_healthy()
        said = bare.exec("python3", "-m", "agent", "check-loop", "examples/correct_loop.py")
    finally:
        bare.remove()
    assert said.splitlines()[0].startswith("sandbox: process limits"), said
