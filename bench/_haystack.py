"""LoCoMo haystacks: one conversation recorded first, then N newer distractor episodes.

Distractors are the turns of the OTHER conversations of the file, repeated round after
round; in each round the other conversations' speaker names are swapped for a pair of names
absent from every question and every turn of the file, and every year (in the date prefix
and the timestamp) moves forward by 2 (plus 1 more for each full pass over the name pairs),
so every distractor is newer than the conversation and no question names a distractor.

Stores are built once through ``Store.import_json`` (10,000 episodes per document) and kept
in a cache folder, keyed by conversation, size and a method version; a finished store is
renamed into place, so an interrupted build never leaves a half store that looks complete.
"""

from __future__ import annotations

import itertools
import json
import os
import re
from collections.abc import Iterator
from datetime import datetime, timedelta

__all__ = ["METHOD_VERSION", "build_store", "distractors", "load_turns", "store_path"]

METHOD_VERSION = 1
_SESSION = re.compile(r"^session_(\d+)$")
_DATE_FORMAT = "%I:%M %p on %d %B, %Y"
_CHUNK = 10_000
# First names to swap in; those present anywhere in the file are dropped at run time.
_NAME_POOL = (
    "Alvar Brigid Cosimo Dagny Eamon Faustine Gideon Hesper Ignatius Jorunn Kasimir Leocadia "
    "Malachy Nerys Orrin Perpetua Quillon Rosamund Sigurd Tamsin Ulric Verity Wystan Xanthe "
    "Yorick Zinnia Ambrose Bettany Cuthbert Delphine Evander Fenella Godric Honora Isidore "
    "Jessamy Leopold Marisol Norbert Ottilie Piran Romilly Sebastian Theodora Ulysses Winifred"
)


def load_turns(sample: dict, *, year_shift: int = 0, names: dict[str, str] | None = None):
    """The conversation's turns in order: dia_id, episode text and timestamp.

    ``year_shift`` moves every date forward by that many years; ``names`` maps speaker names
    to replacements (whole words, in the speaker field and the text).
    """
    conv = sample["conversation"]
    sessions = sorted((int(m.group(1)), k) for k in conv if (m := _SESSION.match(k)))
    swap = _swapper(names)
    turns = []
    for num, key in sessions:
        date_str = conv.get(f"{key}_date_time", "")
        try:
            base = datetime.strptime(date_str, _DATE_FORMAT)
        except ValueError:
            base = datetime(2000, 1, 1) + timedelta(days=num)
            date_str = ""
        if year_shift:
            try:
                base = base.replace(year=base.year + year_shift)
            except ValueError:  # 29 February
                base = base.replace(year=base.year + year_shift, day=28)
            date_str = base.strftime(_DATE_FORMAT).lstrip("0") if date_str else ""
        for i, turn in enumerate(conv[key]):
            text = f"{turn['speaker']}: {turn.get('text', '')}"
            if turn.get("blip_caption"):
                text += f" [shared a photo: {turn['blip_caption']}]"
            if date_str:
                text = f"[{date_str}] {text}"
            ts = base + timedelta(seconds=i)
            turns.append(
                {
                    "dia_id": turn["dia_id"],
                    "text": swap(text),
                    "timestamp": ts.strftime("%Y-%m-%dT%H:%M:%SZ"),
                }
            )
    return turns


def _swapper(names: dict[str, str] | None):
    if not names:
        return lambda text: text
    pattern = re.compile(r"\b(" + "|".join(map(re.escape, names)) + r")\b")
    return lambda text: pattern.sub(lambda m: names[m.group(1)], text)


def _free_names(samples: list[dict]) -> list[str]:
    words: set[str] = set()
    for sample in samples:
        words.update(w.lower() for w in re.findall(r"\w+", json.dumps(sample)))
    pool = _NAME_POOL.split(" ")
    return [n for n in pool if n.lower() not in words]


def distractors(samples: list[dict], own: int, count: int) -> Iterator[str]:
    """Yield ``count`` distractor texts for conversation ``samples[own]``, oldest first."""
    free = _free_names(samples)
    pairs = [(free[i], free[i + 1]) for i in range(0, len(free) - 1, 2)]
    others = [s for i, s in enumerate(samples) if i != own]
    made = 0
    rnd = 0
    while made < count:
        pair = pairs[rnd % len(pairs)]
        shift = 2 + rnd // len(pairs)
        for sample in others:
            conv = sample["conversation"]
            names = {conv["speaker_a"]: pair[0], conv["speaker_b"]: pair[1]}
            for turn in load_turns(sample, year_shift=shift, names=names):
                if made >= count:
                    return
                made += 1
                yield turn["text"], turn["timestamp"]
        rnd += 1


def store_path(cache: str, sample_id: str, haystack: int) -> str:
    """Where the store of one conversation with ``haystack`` distractors is cached."""
    return os.path.join(cache, f"locomo-v{METHOD_VERSION}-{sample_id}-{haystack}.db")


def _episode(n: int, text: str, ts: str) -> dict:
    return {
        "id": f"{n:08x}",
        "timestamp": ts,
        "type": "observation",
        "content": text,
        "source": "locomo",
        "metadata": {},
        "idempotency_key": None,
    }


def build_store(samples: list[dict], own: int, haystack: int, cache: str, log=print) -> str:
    """Build (or reuse) the store: the conversation's turns, then ``haystack`` distractors.

    Episode ids are ``f"{n:08x}"`` with n = 1, 2, ... in recording order, so the first
    ``len(turns)`` ids are the conversation's turns.
    """
    from anneal_memory import Store

    sample = samples[own]
    final = store_path(cache, sample["sample_id"], haystack)
    if os.path.exists(final):
        return final
    os.makedirs(cache, mode=0o700, exist_ok=True)
    tmp = final + ".building"
    for leftover in (tmp, tmp + "-wal", tmp + "-shm"):
        if os.path.exists(leftover):
            os.remove(leftover)
    turns = load_turns(sample)
    items = [(t["text"], t["timestamp"]) for t in turns]
    items_iter = iter([*items, *distractors(samples, own, haystack)])
    with Store(tmp, project_name="LoCoMo", audit=False) as store:
        n = 0
        while True:
            batch = list(itertools.islice(items_iter, _CHUNK))
            chunk = [_episode(n + i + 1, text, ts) for i, (text, ts) in enumerate(batch)]
            if not chunk:
                break
            store.import_json(
                {
                    "format": "anneal-memory-export",
                    "format_version": 1,
                    "episodes": chunk,
                    "tombstones": [],
                }
            )
            n += len(chunk)
            if n % 100_000 < _CHUNK:
                log(f"  {sample['sample_id']} +{haystack}: {n:,} episodes")
    os.replace(tmp, final)
    return final
