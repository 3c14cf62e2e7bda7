"""Fine-mapping many (trait, locus) pairs: one task per pair, each the locus's sufficient
statistics for the trait (:func:`~alphavb.genotypes.sufficient_statistics`) and a fit to
them (``estimator.fit_sufficient``), on the active ``dask.distributed`` client when there
is one (each task reads its own rows of the ``.bed`` and computes its statistics inside the
worker), one after another in this process otherwise; failures recorded per pair, every
finished pair cached, and the credible sets returned as one table.
"""

import threading
from pathlib import Path

import numpy as np

from .._validation import bad_parameter, float_values
from .._warnings import RECORDED

# pairs fitted by threads of one process take turns (worker processes of one thread each,
# a dask cluster's default, run in parallel); each pair's warnings are recorded by its own
# thread (_warnings.RECORDED), which leaves the process's filters as it found them
_WARNINGS_LOCK = threading.Lock()
COLUMNS = ["trait", "locus", "cs", "variants", "size", "coverage", "purity", "top_variant",
           "top_pip", "status", "message"]


def _active_client():
    try:
        from distributed import get_client
    except ImportError:  # pragma: no cover - distributed is in the test extra
        return None
    try:
        return get_client()
    except ValueError:  # no client
        return None


def _fit_pair(genotypes, region, y, covariates, estimator):
    """The credible-set rows of one pair (``status`` "ok" with none when the fit found no
    set), or one "error" row; the statistics are computed in this task (dask's synchronous
    scheduler: a task on a worker does not schedule others)."""
    import dask
    from sklearn.base import clone

    from ._statistics import sufficient_statistics

    try:
        with _WARNINGS_LOCK, dask.config.set(scheduler="sync"), RECORDED as said:
            locus = genotypes.select(region=region)
            stats = sufficient_statistics(locus.X, y, covariates)
            model = clone(estimator).fit_sufficient(**stats)
    except Exception as error:  # recorded per pair, as the study runner records fits
        return [{"cs": -1, "variants": [], "size": 0, "coverage": np.nan,
                 "purity": np.nan, "top_variant": "", "top_pip": np.nan, "status": "error",
                 "message": f"{type(error).__name__}: {error}"}]
    names = locus.variants["snp"].astype(str).to_numpy()
    pips = model.inclusion_probabilities_
    note = "; ".join(dict.fromkeys(str(warning.message) for warning in said))
    rows = []
    for index, found in enumerate(model.credible_sets_):
        members = np.asarray(found["variables"])
        top = members[np.argmax(pips[members])]
        rows.append({"cs": index, "variants": names[members].tolist(),
                     "size": len(members), "coverage": float(found["coverage"]),
                     "purity": float(found["min_abs_corr"]), "top_variant": str(names[top]),
                     "top_pip": float(pips[top]), "status": "ok", "message": note})
    if not rows:
        rows.append({"cs": -1, "variants": [], "size": 0, "coverage": np.nan,
                     "purity": np.nan, "top_variant": "", "top_pip": np.nan, "status": "ok",
                     "message": note or "no credible set"})
    return rows


def fine_map(genotypes, traits, loci, estimator=None, *, covariates=None, cache_dir=None,
             progress=True):
    """Fine-map every trait at every locus (or the given pairs).

    Parameters
    ----------
    genotypes : Genotypes
        From :func:`~alphavb.genotypes.read_plink` (rows: its ``samples``).
    traits : pandas.DataFrame or dict of str to array-like
        One column per trait, one value per individual (NaN: not measured; those rows are
        left out of that trait's statistics).
    loci : dict of str to region, or list of (name, region) or of regions
        Regions as :meth:`Genotypes.select` takes them (``"chrom:start-end"`` or
        ``(chrom, start, end)``); a bare region names itself (a tuple as
        ``"chrom:start-end"``). Names must be distinct, as must the traits'.
    estimator : AlphaSuSiE, default=None
        ``AlphaSuSiE()`` when None; cloned for every pair (its ``fit_sufficient``).
    covariates : array-like of shape (n_samples, n_covariates), default=None
        Projected out of every pair's statistics.
    cache_dir : str or Path, default=None
        Finished pairs are stored there (one file each, keyed by the file, the region, the
        trait's values, the covariates and the estimator's parameters) and read back on the
        next call, so that an interrupted run resumes.
    progress : bool, default=True
        A progress bar over the pairs.

    Returns
    -------
    pandas.DataFrame
        One row per credible set: ``trait``, ``locus``, ``cs`` (its index in the fit),
        ``variants`` (their ids), ``size``, ``coverage``, ``purity`` (the smallest absolute
        correlation in the set), ``top_variant`` and ``top_pip``, ``status`` ("ok" or
        "error") and ``message`` (the error, or the fit's warnings); a pair without a set
        has one row with ``cs = -1``.
    """
    import pandas as pd
    from tqdm.auto import tqdm

    from ..cache import ResultCache, cache_key
    from ..linear_model import AlphaSuSiE
    estimator = AlphaSuSiE() if estimator is None else estimator
    if not isinstance(estimator, AlphaSuSiE):
        raise bad_parameter("fine_map", "estimator", "an AlphaSuSiE (the table is of its "
                            "credible sets)", type(estimator).__name__)
    estimator._validate_params()          # once, not once per pair
    values, regions = _checked_inputs(genotypes, traits, loci)
    pairs = [(trait, str(locus), region) for locus, region in regions for trait in values]
    cache = None if cache_dir is None else ResultCache(cache_dir)
    if cache is not None:
        cache.check_writable("cache_dir")
    Z = _checked_covariates(covariates, genotypes.shape[0])
    blocks = genotypes._blocks
    stat = Path(blocks.path).stat()
    # the file as it is now (a .bed rewritten at the same path is another file) and the
    # variants selected from it
    source = {"bed": blocks.path, "size": stat.st_size, "modified": stat.st_mtime_ns,
              "variants": blocks.variant_index}

    def key(trait, region):
        return cache_key({"source": source, "region": str(region), "trait": values[trait],
                          "covariates": Z, "estimator": estimator})

    results = {}
    todo = []
    for trait, locus, region in pairs:
        found = None if cache is None else cache.load(key(trait, region))
        if found is not None:
            results[(trait, locus)] = found["rows"]
        else:
            todo.append((trait, locus, region))
    bar = tqdm(total=len(todo), disable=not (progress and todo), desc="fine_map", unit="pair")
    client = _active_client()
    if client is not None and todo:
        from distributed import as_completed

        futures = {client.submit(_fit_pair, genotypes, region, values[trait], Z, estimator,
                                 pure=False): (trait, locus, region)
                   for trait, locus, region in todo}
        for future in as_completed(futures):
            trait, locus, region = futures[future]
            results[(trait, locus)] = _finished(cache, key(trait, region), future.result())
            bar.update()
    else:
        for trait, locus, region in todo:
            results[(trait, locus)] = _finished(
                cache, key(trait, region), _fit_pair(genotypes, region, values[trait], Z,
                                                     estimator))
            bar.update()
    bar.close()
    table = [{"trait": trait, "locus": locus, **row}
             for trait, locus, _ in pairs for row in results[(trait, locus)]]
    return pd.DataFrame(table, columns=COLUMNS)


def _checked_inputs(genotypes, traits, loci):
    """The traits as ``{name: values}`` and the loci as ``[(name, region)]``, checked."""
    import pandas as pd

    from ._plink import Genotypes

    if not isinstance(genotypes, Genotypes):
        raise bad_parameter("fine_map", "genotypes", "the Genotypes of read_plink",
                            type(genotypes).__name__)
    n = genotypes.shape[0]
    names = [str(name) for name in (traits.columns if isinstance(traits, pd.DataFrame)
                                    else traits)]
    columns = ([traits.iloc[:, i] for i in range(traits.shape[1])]
               if isinstance(traits, pd.DataFrame) else list(traits.values()))
    values = {}
    for name, column in zip(names, columns, strict=True):
        if name in values:
            raise bad_parameter("fine_map", "traits", "distinct names", f"{name!r} twice")
        try:
            y = float_values("fine_map", "traits", column)  # pd.NA as NaN: missing
        except ValueError:
            raise bad_parameter("fine_map", "traits", "numbers (NaN for a missing value)",
                                f"trait {name!r} of {np.asarray(column).dtype} values") from None
        if y.shape != (n,):
            raise bad_parameter("fine_map", "traits", f"one value per individual ({n})",
                                f"trait {name!r} of shape {y.shape}")
        values[name] = y
    one = ("the string" if isinstance(loci, str) else "the one region"
           if isinstance(loci, tuple) and len(loci) == 3 and np.ndim(loci[1]) == 0
           and not isinstance(loci[1], str) else None)  # (chrom, start, end): one region
    if one is not None:
        raise bad_parameter("fine_map", "loci", "a list of regions or (name, region) pairs, "
                            "or a dict of names to regions", f"{one} {loci!r}",
                            fix=f"Pass a list: [{loci!r}].")
    regions = [_named_region(locus) for locus in
               (loci.items() if isinstance(loci, dict) else loci)]
    if len({str(locus) for locus, _ in regions}) != len(regions):
        raise bad_parameter("fine_map", "loci", "distinct names",
                            [str(locus) for locus, _ in regions])
    if not values or not regions:
        raise bad_parameter("fine_map", "traits" if not values else "loci", "at least one",
                            "none")
    return values, regions


def _named_region(locus):
    """``(name, region)`` of an entry of ``loci``: a bare region (``"chrom:start-end"`` or
    ``(chrom, start, end)``) names itself."""
    if isinstance(locus, str):
        return locus, locus
    if isinstance(locus, tuple) and len(locus) == 3:
        return "{}:{}-{}".format(*locus), locus
    try:
        name, region = locus
    except (TypeError, ValueError):
        raise bad_parameter("fine_map", "loci", "regions ('chrom:start-end' or (chrom, "
                            "start, end)) or (name, region) pairs", repr(locus)) from None
    return name, region


def _checked_covariates(covariates, n):
    Z = None if covariates is None else float_values("fine_map", "covariates", covariates)
    if Z is not None and (Z.ndim not in (1, 2) or Z.shape[0] != n):
        raise bad_parameter("fine_map", "covariates", f"an array of {n} rows (one per "
                            "individual)", f"shape {Z.shape}")
    return Z


def _finished(cache, key, rows):
    """Store a pair's rows (errors are not stored: the next call tries again)."""
    if cache is not None and all(row["status"] == "ok" for row in rows):
        cache.store(key, {"rows": _json(rows)})
    return rows


def _json(rows):
    return [{name: (None if isinstance(value, float) and np.isnan(value) else value)
             for name, value in row.items()} for row in rows]
