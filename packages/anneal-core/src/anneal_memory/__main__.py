"""``python -m anneal_memory`` runs the CLI."""

import sys

from anneal_memory.cli import console_main

sys.exit(console_main())
