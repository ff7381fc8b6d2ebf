"""Updated facts and provenance.

Trust classes, supersession, state keys, ``derived_from`` and the evidence crystals cite.
The wrap's ``[supersedes:]`` links and the crystal tier use these on ``tx.conn``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from anneal_memory._lazy import lazy_exports

if TYPE_CHECKING:
    from anneal_memory.store.provenance._checks import (
        cap_trust,
        effective_trusts,
        parse_trust,
        trusts_and_sources,
    )
    from anneal_memory.store.provenance._echo import (
        copies_one_another,
        copy_source,
        is_copy,
        recalled_copies,
        text_words,
        without_copies,
        write_copy,
    )
    from anneal_memory.store.provenance._evidence import citing_crystals, citing_crystals_before
    from anneal_memory.store.provenance._exposed import (
        LOOKBACK_EPISODES,
        LOOKBACK_EXPOSURES,
        LOOKBACK_MINUTES,
        exposed_copy,
        recent_shown,
    )
    from anneal_memory.store.provenance._reads import (
        EpisodePlace,
        Tombstone,
        episode_place,
        links_touching,
        scopes_of,
        slot_members,
        tombstone,
    )
    from anneal_memory.store.provenance._supersession import VIA_WRAP, add_link, check_link

_EXPORTS: dict[str, str] = {
    "LOOKBACK_EPISODES": "anneal_memory.store.provenance._exposed",
    "LOOKBACK_EXPOSURES": "anneal_memory.store.provenance._exposed",
    "LOOKBACK_MINUTES": "anneal_memory.store.provenance._exposed",
    "exposed_copy": "anneal_memory.store.provenance._exposed",
    "recent_shown": "anneal_memory.store.provenance._exposed",
    "EpisodePlace": "anneal_memory.store.provenance._reads",
    "Tombstone": "anneal_memory.store.provenance._reads",
    "VIA_WRAP": "anneal_memory.store.provenance._supersession",
    "add_link": "anneal_memory.store.provenance._supersession",
    "check_link": "anneal_memory.store.provenance._supersession",
    "citing_crystals": "anneal_memory.store.provenance._evidence",
    "citing_crystals_before": "anneal_memory.store.provenance._evidence",
    "copies_one_another": "anneal_memory.store.provenance._echo",
    "copy_source": "anneal_memory.store.provenance._echo",
    "effective_trusts": "anneal_memory.store.provenance._checks",
    "is_copy": "anneal_memory.store.provenance._echo",
    "recalled_copies": "anneal_memory.store.provenance._echo",
    "text_words": "anneal_memory.store.provenance._echo",
    "without_copies": "anneal_memory.store.provenance._echo",
    "write_copy": "anneal_memory.store.provenance._echo",
    "episode_place": "anneal_memory.store.provenance._reads",
    "links_touching": "anneal_memory.store.provenance._reads",
    "scopes_of": "anneal_memory.store.provenance._reads",
    "slot_members": "anneal_memory.store.provenance._reads",
    "tombstone": "anneal_memory.store.provenance._reads",
    "cap_trust": "anneal_memory.store.provenance._checks",
    "parse_trust": "anneal_memory.store.provenance._checks",
    "trusts_and_sources": "anneal_memory.store.provenance._checks",
}

__all__ = [
    "LOOKBACK_EPISODES",
    "LOOKBACK_EXPOSURES",
    "LOOKBACK_MINUTES",
    "VIA_WRAP",
    "EpisodePlace",
    "Tombstone",
    "add_link",
    "cap_trust",
    "check_link",
    "citing_crystals",
    "citing_crystals_before",
    "copies_one_another",
    "copy_source",
    "effective_trusts",
    "episode_place",
    "exposed_copy",
    "is_copy",
    "links_touching",
    "parse_trust",
    "recalled_copies",
    "recent_shown",
    "scopes_of",
    "slot_members",
    "text_words",
    "tombstone",
    "trusts_and_sources",
    "without_copies",
    "write_copy",
]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
