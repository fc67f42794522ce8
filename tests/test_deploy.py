"""deploy/: HAProxy in front of K = 2 real Streamlit processes on loopback, and the files that cannot run here.

The proxy tests run deploy/start-class.sh itself and speak to it as a browser
does: a page load (which gives the affinity cookie), then the websocket with
that cookie. Without HAProxy they skip and say how to get it; under CI=true
they fail instead (.ci/run installs it).
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import signal
import subprocess
import time
import urllib.request
from http.cookies import SimpleCookie
from pathlib import Path

import pytest
from browser_support import ROOT, ClassSet, healthy
from page_support import unescaped
from streamlit_session import SessionGone, StreamlitSession

from views.serving import SESSION_LOST, SESSION_REBUILT

DEPLOY = ROOT / "deploy"
COOKIE = "LOOPSANDBOX_SERVER"
RUNAWAY = "A runaway model that never stops"


def need_haproxy() -> None:
    if shutil.which("haproxy"):
        return
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail("CI needs HAProxy for the proxy tests: apt-get install haproxy")
    pytest.skip("HAProxy is not installed: apt-get install haproxy")


def page_load(url: str, cookie: str = "") -> str:
    """GET the page as a browser does; the affinity cookie the proxy gives (or the one already held)."""
    request = urllib.request.Request(url + "/", headers={"Cookie": f"{COOKIE}={cookie}"} if cookie else {})
    with urllib.request.urlopen(request, timeout=10) as response:
        given = SimpleCookie(", ".join(response.headers.get_all("Set-Cookie") or []))
    return given[COOKIE].value if COOKIE in given else cookie


async def learner_at_turn(url: str, turns: int) -> tuple[StreamlitSession, str]:
    cookie = page_load(url)
    session = await StreamlitSession.open(url, headers={"Cookie": f"{COOKIE}={cookie}"})
    await session.rerun(session.pick("Script", RUNAWAY))
    for _ in range(turns):
        await session.rerun(*session.step())
    return session, cookie


def turn_shown(texts: list[str]) -> str:
    return next((t.split(" · ")[0] for t in texts if re.match(r"turn \d+ of \d+", t)), "no turn shown")


@pytest.fixture
def class_set(tmp_path):
    need_haproxy()
    running = ClassSet(2, tmp_path)
    try:
        running.wait_until_healthy()
        yield running
    finally:
        running.stop()


def test_sessions_spread_over_both_processes_and_each_comes_back_to_its_own(class_set):
    """Four learners: both processes get some; each reconnects (a network blip) to its own run."""

    async def learners():
        results = []
        # All four in the room at once: the proxy gives each new learner the process with fewer open.
        joined = [await learner_at_turn(class_set.url, turns) for turns in (1, 2, 3, 4)]
        for session, cookie in joined:
            await session.close()
            back = await StreamlitSession.open(class_set.url, existing_session=session.session_id,
                                               query_string=session.query_string,
                                               headers={"Cookie": f"{COOKIE}={cookie}"})
            # a new tab, a resumed session: no notice
            assert not any(SESSION_LOST in unescaped(t) for t in session.last_texts + back.last_texts)
            results.append((cookie, back.session_id == session.session_id, turn_shown(back.last_texts)))
            await back.close()
        return results

    results = asyncio.run(learners())
    assert {cookie for cookie, _, _ in results} == {"st1", "st2"}, results
    assert [(same, shown) for _, same, shown in results] == [(True, f"turn {n} of 40") for n in (1, 2, 3, 4)]


def test_the_processes_share_the_machines_cores_for_checks(class_set):
    """One check a core in each of K processes would run K times the cores' worth of checks at once: the start
    script gives each process its share (measured before: the Steps beside 30 checks through the proxy were
    slower than on one process)."""
    expected = os.environ.get("LOOP_SANDBOX_CHECK_SLOTS") or str(max(1, len(os.sched_getaffinity(0)) // 2))  # nproc
    for server in class_set.backends:
        environ = Path(f"/proc/{class_set.pid_of(server)}/environ").read_bytes().split(b"\0")
        assert f"LOOP_SANDBOX_CHECK_SLOTS={expected}".encode() in environ, server


def test_a_process_that_dies_gives_its_learners_a_fresh_session_at_once_not_a_hang(class_set):
    """Its websocket closes; the browser's reconnect (same cookie, same session id) lands on the other process."""

    async def learner_whose_process_dies():
        session, cookie = await learner_at_turn(class_set.url, 3)
        os.kill(class_set.pid_of(cookie), signal.SIGKILL)
        started = time.monotonic()
        with pytest.raises(SessionGone):
            await session.rerun(*session.step(), timeout=30)
        noticed = time.monotonic() - started
        # As Streamlit's browser client does: wait for the health check through the proxy, then reconnect.
        while not healthy(class_set.url):
            await asyncio.sleep(0.2)
        now_on = page_load(class_set.url, cookie)
        back = await StreamlitSession.open(class_set.url, existing_session=session.session_id,
                                               query_string=session.query_string,
                                           headers={"Cookie": f"{COOKIE}={now_on}"})
        await back.close()
        return cookie, now_on, noticed, session.session_id, back.session_id, back.last_texts

    died, now_on, noticed, before, after, texts = asyncio.run(learner_whose_process_dies())
    assert now_on != died and now_on in class_set.backends
    assert noticed < 30  # pytest.raises above already failed a hang; this says how long it took
    assert after != before
    assert turn_shown(texts) == "turn 3 of 40", texts  # the runaway, replayed from the address the tab sent
    assert any(SESSION_REBUILT in unescaped(text) for text in texts), texts  # and says why, and what is not back


# ---------------------------------------------------------------- the files that cannot run here


def test_haproxy_configuration_has_affinity_websockets_and_health_checks():
    config = (DEPLOY / "haproxy.cfg").read_text()
    lines = [line.split("#")[0].strip() for line in config.splitlines()]
    assert "mode http" in lines  # HTTP mode passes the websocket's upgrade through
    assert any(line.startswith("timeout tunnel") for line in lines)  # an open websocket is not cut at 60 s
    assert f"cookie {COOKIE} insert indirect nocache httponly" in lines
    assert "option redispatch" in lines
    assert "retry-on conn-failure empty-response response-timeout" in lines  # a dying process: no 502
    assert "http-check send meth GET uri /_stcore/health" in lines
    assert any(line.startswith("default-server check") for line in lines)
    assert lines[-1] == "" or not any(line.startswith(("frontend", "listen")) for line in
                                      lines[lines.index("backend streamlit"):])  # the script appends servers


def test_container_file_runs_the_page_with_bubblewrap_and_a_health_check():
    text = (DEPLOY / "Containerfile").read_text()
    assert re.search(r"^ARG BASE=debian:\S+-slim$", text, re.M) and re.search(r"^FROM \$\{BASE\}$", text, re.M)
    assert re.search(r"apt-get install .*\bbubblewrap\b", text)
    assert re.search(r"pip install .*\.", text)  # the package itself
    assert "EXPOSE 8501" in text
    assert "/_stcore/health" in text  # HEALTHCHECK
    assert re.search(r"--server\.address[ =]0\.0\.0\.0", text)  # inside a container, reachable from outside it
    assert "seccomp=unconfined" in text or "bubblewrap needs" in text.lower()  # the run settings are written down


def test_kubernetes_manifest_has_readiness_affinity_and_autoscaling():
    text = (DEPLOY / "kubernetes.yaml").read_text()
    documents = {kind: body for kind, body in re.findall(r"^kind: (\w+)\n(.*?)(?=^---|\Z)", text, re.M | re.S)}
    assert set(documents) >= {"Deployment", "Service", "Ingress", "HorizontalPodAutoscaler"}
    deployment = documents["Deployment"]
    assert re.search(r"readinessProbe:\s+httpGet:\s+path: /_stcore/health\s+port: 8501", deployment)
    assert "containerPort: 8501" in deployment
    assert "seccompProfile" in deployment and "Unconfined" in deployment  # bubblewrap's namespaces
    slots = re.search(r'name: LOOP_SANDBOX_CHECK_SLOTS\s+value: "(\d+)"', deployment)
    cpu = re.search(r'requests: \{cpu: "(\d+)"', deployment)
    assert slots and cpu and slots.group(1) == cpu.group(1)  # checks at once: the cores the pod asks for
    ingress = documents["Ingress"]
    assert 'nginx.ingress.kubernetes.io/affinity: "cookie"' in ingress
    assert "nginx.ingress.kubernetes.io/proxy-read-timeout" in ingress  # websockets outlive the default 60 s
    assert "number: 8501" in documents["Service"] + ingress
    assert "scaleTargetRef" in documents["HorizontalPodAutoscaler"]


def checked_by_haproxy(config: str, tmp_path: Path) -> subprocess.CompletedProcess:
    """`haproxy -c` on `config` with two servers appended and the proxy's address set, as start-class.sh does."""
    haproxy = shutil.which("haproxy") or "/usr/sbin/haproxy"
    if not Path(haproxy).exists():
        if os.environ.get("CI"):
            pytest.fail("haproxy is not installed: apt-get install haproxy")
        pytest.skip("haproxy is not installed: apt-get install haproxy")
    path = tmp_path / "haproxy.cfg"
    path.write_text(config + "".join(f"    server st{i} 127.0.0.1:{8600 + i} cookie st{i}\n" for i in (1, 2)))
    env = {**os.environ, "PROXY_ADDRESS": "127.0.0.1", "PROXY_PORT": "8599"}
    return subprocess.run([haproxy, "-c", "-f", str(path)], env=env, capture_output=True, text=True, timeout=30)


def test_haproxy_itself_accepts_the_configuration_and_refuses_a_broken_one(tmp_path):
    config = (DEPLOY / "haproxy.cfg").read_text()
    checked = checked_by_haproxy(config, tmp_path)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    broken = checked_by_haproxy(config.replace("option redispatch", "option redispach"), tmp_path)
    assert broken.returncode != 0 and "redispach" in broken.stdout + broken.stderr


def test_the_kubernetes_manifest_is_valid_against_the_api_schemas():
    """Checked offline by kubernetes-validate against the Kubernetes API's own schemas, strictly: a field the API
    does not know (a misspelling) is refused, not ignored as a cluster would."""
    import kubernetes_validate
    import yaml

    documents = [d for d in yaml.safe_load_all((DEPLOY / "kubernetes.yaml").read_text()) if d]
    version = kubernetes_validate.latest_version()
    for document in documents:
        kubernetes_validate.validate(document, version, strict=True)
    deployment = next(d for d in documents if d["kind"] == "Deployment")
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    container["readinessprobe"] = container.pop("readinessProbe")  # the probe misspelt: a cluster would drop it
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(deployment, version, strict=True)
