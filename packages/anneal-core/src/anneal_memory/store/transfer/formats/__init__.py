"""Readers of the formats ``import`` takes besides our own.

The public 1.0.2 JSON and databases, and the reference MCP memory server's file.
"""
