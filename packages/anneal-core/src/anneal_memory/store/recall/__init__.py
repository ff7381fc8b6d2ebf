"""Recall: filters, keyword parsing, the stage order and the rankers."""
