"""One agent session in a process of its own (used by the contract's cross-process check).

Usage: ``python _session_child.py CONFTEST HARNESS_CLASS KWARGS_JSON DB SESSION`` where
SESSION is 1 (the tool call, the answer and a wrap) or 2 (one answer, no wrap). Prints the
session's model inputs as JSON. Sockets are blocked: any network use fails the session.
"""

from __future__ import annotations

import importlib.util
import json
import socket
import sys
from pathlib import Path


def _block_network() -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise OSError("network access from a contract session")

    real_connect = socket.socket.connect

    def connect(self: socket.socket, address: object) -> object:
        if self.family == socket.AF_UNIX:
            return real_connect(self, address)
        return refuse()

    socket.socket.connect = connect  # type: ignore[method-assign]
    socket.getaddrinfo = refuse  # type: ignore[assignment]


def main(conftest: str, cls_name: str, kwargs: str, db: str, session: str) -> None:
    _block_network()
    here = Path(__file__).parent
    sys.path[:0] = [str(here), str(Path(conftest).parent)]
    import _contract
    from anneal_memory import AgentMemory

    spec = importlib.util.spec_from_file_location("session_conftest", conftest)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # pydantic models there resolve their annotations
    spec.loader.exec_module(module)
    harness = getattr(module, cls_name)(**json.loads(kwargs))
    with AgentMemory(db, session_id=_contract.SESSION_ID) as memory:
        if session == "1":
            packages: list[str] = []
            steps = [
                _contract.call_tool,
                _contract.answer(_contract.ANSWER),
                _contract.compress_step(memory.store, packages),
            ]
            result = harness.run(memory, _contract.FIRST_PROMPT, steps, wrap=True)
            assert result.wrap is not None
            assert result.wrap.status == "saved", result.wrap.message
        else:
            steps = [_contract.answer(_contract.SECOND_ANSWER)]
            result = harness.run(memory, _contract.SECOND_PROMPT, steps, wrap=False)
    print(json.dumps(result.model_inputs))


if __name__ == "__main__":
    main(*sys.argv[1:6])
