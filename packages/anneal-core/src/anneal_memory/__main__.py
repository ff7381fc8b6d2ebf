"""``python -m anneal_memory`` runs the CLI."""

import sys

from anneal_memory.cli import main

sys.exit(main())
