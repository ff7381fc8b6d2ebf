"""Which process holds a wrap, and when it is provably gone (real child processes)."""

from __future__ import annotations

import dataclasses
import os
import signal
import subprocess
import sys

import pytest
from anneal_memory._owner import ProcessIdentity, current_process, process_gone

posix_only = pytest.mark.skipif(sys.platform == "win32", reason="no kill(pid, 0) on Windows")


def test_this_process_is_not_gone() -> None:
    assert not process_gone(current_process())


def test_a_process_on_another_host_is_never_judged() -> None:
    other = dataclasses.replace(current_process(), host="elsewhere", pid=1)
    assert not process_gone(other)


@pytest.mark.e2e
@posix_only
def test_a_live_child_is_not_gone_and_a_reaped_one_is() -> None:
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        me = current_process()
        owner = ProcessIdentity(pid=child.pid, host=me.host, start="")
        assert not process_gone(owner)
    finally:
        child.kill()
        child.wait()
    assert process_gone(owner)


@pytest.mark.e2e
@pytest.mark.skipif(not os.path.exists("/proc/self/stat"), reason="needs /proc")
def test_a_killed_unreaped_child_is_gone() -> None:
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        owner = ProcessIdentity(pid=child.pid, host=current_process().host, start="")
        os.kill(child.pid, signal.SIGKILL)
        os.waitid(os.P_PID, child.pid, os.WEXITED | os.WNOWAIT)  # a zombie until reaped
        assert process_gone(owner)
    finally:
        child.wait()


@pytest.mark.skipif(not os.path.exists("/proc/self/stat"), reason="needs /proc")
def test_a_reused_pid_is_told_apart_by_its_start_mark() -> None:
    me = current_process()
    assert me.start
    assert process_gone(dataclasses.replace(me, start=me.start + "0"))
    parent = ProcessIdentity(pid=os.getppid(), host=me.host, start="boot:1")
    assert process_gone(parent)
