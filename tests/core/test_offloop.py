"""``OffLoop``: the writer thread, its retries, and bounded reads on an event loop."""

from __future__ import annotations

import asyncio
import threading

import pytest
from anneal_memory import AgentMemory, Store, StoreDatabaseError
from anneal_memory.agent import OffLoop
from anneal_memory.agent._offloop import in_event_loop


def test_submitted_work_runs_in_order_off_the_calling_thread() -> None:
    offloop, seen = OffLoop(), []
    for n in range(20):
        offloop.submit(lambda n=n: seen.append((n, threading.current_thread().name)))
    assert offloop.drain(30)
    assert [n for n, _ in seen] == list(range(20))
    assert {name for _, name in seen} == {"anneal-memory-writer"}
    assert offloop.pending == 0


def test_a_locked_store_error_is_retried_until_the_write_succeeds() -> None:
    offloop, tries = OffLoop(), []

    def write() -> None:
        tries.append(1)
        if len(tries) < 3:
            raise StoreDatabaseError("database is locked", retryable=True)

    offloop.submit(write)
    assert offloop.drain(30)
    assert len(tries) == 3
    assert offloop.retries == 2


def test_another_error_is_logged_not_retried(caplog: pytest.LogCaptureFixture) -> None:
    offloop, tries = OffLoop(), []

    def write() -> None:
        tries.append(1)
        raise StoreDatabaseError("disk full")

    offloop.submit(write)
    assert offloop.drain(30)
    assert len(tries) == 1
    assert "a queued write failed" in caplog.text


def test_a_read_waits_for_the_queued_records_first(store: Store) -> None:
    memory = AgentMemory(store)

    async def hook() -> str:
        assert in_event_loop()
        memory.offloop.record(memory.record_answer, "The deploy to staging finished.")
        return await memory.offloop.read(memory.context_for, "staging deploy", default="")

    assert not in_event_loop()
    assert "deploy to staging finished" in asyncio.run(hook())


def test_a_stuck_read_costs_one_wait_then_reads_return_at_once() -> None:
    offloop, release, calls = OffLoop(wait=0.2), threading.Event(), []

    def slow() -> str:
        calls.append(1)
        release.wait(30)
        return "late"

    async def main() -> tuple[str, str]:
        first = await offloop.read(slow, default="")
        second = await offloop.read(slow, default="")  # not even tried while the first hangs
        return first, second

    assert asyncio.run(main()) == ("", "")
    assert calls == [1]
    release.set()

    async def later() -> str:
        for _ in range(300):  # the stuck read finishes in its thread; then reads wait again
            if offloop._stuck is not None and offloop._stuck.done():
                break
            await asyncio.sleep(0.01)
        return await offloop.read(lambda: "fresh", default="")

    assert asyncio.run(later()) == "fresh"


def test_a_closed_memory_can_still_read_off_the_loop(store: Store) -> None:
    memory = AgentMemory(store)
    memory.record_answer("Port 6543.")
    memory.close()  # the store is the caller's: it stays open

    async def hook() -> str:
        return await memory.offloop.read(memory.context_for, "port", default="")

    assert "6543" in asyncio.run(hook())
