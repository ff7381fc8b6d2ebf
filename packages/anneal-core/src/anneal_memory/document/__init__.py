"""Pure continuity text, no I/O; below ``immune/`` and ``store/``.

Parse and render, pattern lines and markers, section schemas, durable facts, level claims.
"""
