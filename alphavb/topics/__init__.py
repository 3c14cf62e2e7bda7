"""alpha-VB topic models."""

from ._estep import heldout_perplexity
from ._lda import AlphaLDA

__all__ = ["AlphaLDA", "heldout_perplexity"]
