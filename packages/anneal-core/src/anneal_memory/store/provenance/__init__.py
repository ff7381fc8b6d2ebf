"""Updated facts and provenance.

Trust classes, supersession, state keys, ``derived_from`` and the evidence crystals cite.
"""
