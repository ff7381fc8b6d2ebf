"""The immune system: which pattern lines may keep the level they claim, and why."""

from anneal_memory.immune._checks import StalePattern
from anneal_memory.immune._graduation import GraduationContext, LineVerdict, PriorPattern
from anneal_memory.immune._report import Finding, FindingCode, Severity

__all__ = [
    "Finding",
    "FindingCode",
    "GraduationContext",
    "LineVerdict",
    "PriorPattern",
    "Severity",
    "StalePattern",
]
