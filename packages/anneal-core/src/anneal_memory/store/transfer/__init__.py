"""Export and import: our documents, markdown dumps, and every format ``import`` reads."""
