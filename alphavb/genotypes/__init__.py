"""Genotypes past one machine's memory: PLINK 1 binary files read lazily, block by block,
into dask arrays (:func:`read_plink`, :class:`Genotypes`); a locus's sufficient statistics
computed over the blocks (:func:`sufficient_statistics`, for the regression models'
``fit_sufficient``); many traits at many loci fine-mapped at once (:func:`fine_map`).

``pip install "alphavb[dask]"`` gives dask; on a ``dask.distributed`` cluster the blocks
are read where they are computed (every task reads its own rows and variants of the
``.bed``, which the workers must see at the same path).
"""

from ._fine_map import fine_map
from ._plink import Genotypes, read_plink
from ._statistics import sufficient_statistics

__all__ = ["Genotypes", "fine_map", "read_plink", "sufficient_statistics"]
