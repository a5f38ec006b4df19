"""Processes for the deployment tests: a standalone Spark cluster and a Spark Connect
server started from the installed pyspark, always stopped (process-group kill), and the
driver program (``deploy_driver.py``) run against them in a subprocess.

Nothing here shares the JVM of ``conftest.py``'s local session.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DRIVER = Path(__file__).with_name("deploy_driver.py")
#: the JVMs' settings (drivers, executors, Connect servers): deploy_conf/spark-defaults.conf
CONF_DIR = Path(__file__).with_name("deploy_conf")
#: the same options for the standalone master and workers (they read no spark-defaults);
#: also the tests' own SparkSession's (conftest.py) and the packaging tests' apps.  C1 only,
#: serial GC, and no verification of the classpath's bytecode (Spark's jars: ~2.5 s of CPU
#: at each JVM's start; the JDK's own classes are never verified).  CPU, not behaviour
JVM_OPTIONS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -XX:+UnlockDiagnosticVMOptions -XX:-BytecodeVerificationRemote"


def spark_home() -> Path:
    import pyspark

    return Path(pyspark.__file__).parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port: int, proc: subprocess.Popen, log: Path, timeout: float = 240) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise RuntimeError(f"process exited ({proc.returncode}) before port {port} opened:\n{log.read_text()[-3000:]}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.5)
    raise TimeoutError(f"port {port} did not open in {timeout} s:\n{log.read_text()[-3000:]}")


def base_env(python: str | None = None) -> dict[str, str]:
    """The environment of every process: loopback only, no checkout on PYTHONPATH."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "PYSPARK_PYTHON", "PYSPARK_DRIVER_PYTHON", "SPARK_HOME")}
    env.update(SPARK_LOCAL_IP="127.0.0.1", SPARK_LOCAL_HOSTNAME="localhost", SPARK_HOME=str(spark_home()),
               SPARK_DAEMON_MEMORY="256m", PYARROW_IGNORE_TIMEZONE="1",
               SPARK_CONF_DIR=str(CONF_DIR), SPARK_DAEMON_JAVA_OPTS=JVM_OPTIONS)
    if python:
        env["PYSPARK_PYTHON"] = python
    return env


def _start(cmd: list[str], log: Path, env: dict[str, str]) -> subprocess.Popen:
    with open(log, "wb") as fh:
        return subprocess.Popen(cmd, stdout=fh, stderr=subprocess.STDOUT, env=env, cwd=str(log.parent),
                                start_new_session=True)


def _stop(procs: list[subprocess.Popen]) -> None:
    for p in procs:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(p.pid, signal.SIGTERM)
    for p in procs:
        try:
            p.wait(timeout=15)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(p.pid, signal.SIGKILL)
            p.wait(timeout=15)


@contextlib.contextmanager
def standalone_cluster(work: Path, workers: int = 2, python: str | None = None) -> Iterator[str]:
    """A master and *workers* workers (1 core, 1 GB to offer each) on loopback; yields the master URL."""
    spark_class = str(spark_home() / "bin" / "spark-class")
    env = base_env(python)
    port, web = free_port(), free_port()
    procs: list[subprocess.Popen] = []
    try:
        work.mkdir(parents=True, exist_ok=True)
        master = _start([spark_class, "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
                         "--port", str(port), "--webui-port", str(web)], work / "master.log", env)
        procs.append(master)
        wait_port(port, master, work / "master.log")
        url = f"spark://127.0.0.1:{port}"
        for i in range(workers):
            wdir = work / f"worker{i}"
            wdir.mkdir(exist_ok=True)
            procs.append(_start([spark_class, "org.apache.spark.deploy.worker.Worker", "--host", "127.0.0.1",
                                 "--cores", "1", "--memory", "1g", "--webui-port", str(free_port()),
                                 "--work-dir", str(wdir), url], work / f"worker{i}.log", env))
        _wait_workers(web, workers, procs, work)
        yield url
    finally:
        _stop(procs)


def _wait_workers(web: int, n: int, procs: list[subprocess.Popen], work: Path, timeout: float = 240) -> None:
    """Until the master's JSON status lists *n* alive workers."""
    import urllib.request

    end = time.monotonic() + timeout
    while time.monotonic() < end:
        for p in procs:
            if p.poll() is not None:
                raise RuntimeError(f"a cluster process exited: {p.args}\n"
                                   + "\n".join((work / f).read_text()[-1500:] for f in os.listdir(work)
                                               if f.endswith(".log")))
        with contextlib.suppress(OSError, ValueError):
            status = json.load(urllib.request.urlopen(f"http://127.0.0.1:{web}/json/", timeout=5))
            if sum(w.get("state") == "ALIVE" for w in status.get("workers", [])) >= n:
                return
        time.sleep(1)
    raise TimeoutError(f"{n} workers did not register in {timeout} s")


@contextlib.contextmanager
def connect_server(work: Path, python: str, extra_path: str | None = None) -> Iterator[str]:
    """A Spark Connect server started with docs/spark-deployment.md's command (block
    ``connect-server``), whose Python workers run *python* with *extra_path* on their
    ``PYTHONPATH``; yields its ``sc://`` URL."""
    from tests.spark.doc_commands import command

    port = free_port()
    env = base_env(python)
    env.pop("SPARK_DAEMON_MEMORY")   # Spark sizes a Connect server as a daemon: 256 MB is too small
    env.update(PORT=str(port), SERVER_PYTHON=python)
    if extra_path:
        env["PYTHONPATH"] = extra_path
    work.mkdir(parents=True, exist_ok=True)
    proc = _start(["bash", "-c", command("connect-server")], work / "connect.log", env)
    try:
        wait_port(port, proc, work / "connect.log")
        yield f"sc://127.0.0.1:{port}"
    finally:
        _stop([proc])


def run_driver(args: list[str], cwd: Path, env: dict[str, str], timeout: float = 900) -> dict:
    """Run deploy_driver.py with the driver's interpreter (this one); return its RESULT."""
    proc = subprocess.run([sys.executable, str(DRIVER), *args], cwd=str(cwd), env=env, capture_output=True,
                          text=True, timeout=timeout)
    lines = [x for x in proc.stdout.splitlines() if x.startswith("RESULT ")]
    if proc.returncode != 0 or not lines:
        raise AssertionError(f"driver failed ({proc.returncode}):\n{proc.stdout[-4000:]}\n{proc.stderr[-8000:]}")
    return json.loads(lines[-1][len("RESULT "):])
