"""alpha-VB topic models."""

from ._lda import AlphaLDA, heldout_perplexity

__all__ = ["AlphaLDA", "heldout_perplexity"]
