"""What every exact sampler returns: draws by chain, the sampler's diagnostics, and their
``arviz.InferenceData``."""

import warnings
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from .._validation import caller_stacklevel, import_arviz

# Vehtari, Gelman, Simpson, Carpenter & Bürkner (2021, Bayesian Analysis 16:667-718): R-hat
# below 1.01 and a bulk ESS of at least 100 per chain before trusting the draws
RHAT_LIMIT = 1.01
ESS_PER_CHAIN = 100
# the fewest draws per chain for split R-hat (two halves of 2) and for the bulk ESS (the
# autocorrelations of split chains of at least 4 draws)
MIN_RHAT_DRAWS = 4
MIN_ESS_DRAWS = 8


class MixingWarning(UserWarning):
    """The chains of an exact sampler have not mixed (R-hat or ESS); the message says which
    parameter and what to raise."""


def _arviz():
    return import_arviz('alphavb.exact needs ArviZ: pip install "alphavb[exact]"')


def _varying(values):
    """The entries of a (chain, draw, ...) array as (chain, draw, entry) floats, and which of
    them are not constant over all draws (R-hat and ESS are undefined for a constant)."""
    flat = values.reshape(values.shape[0], values.shape[1], -1).astype(float)
    return flat, np.ptp(flat, axis=(0, 1)) > 0.0


def _entry(name, shape, at):
    """The label of entry ``at`` (a flat index) of a variable of draw shape ``shape``:
    ``means[2, 1]``, ``coef[3]``, or the name of a scalar."""
    if not shape:
        return name
    return f"{name}[{', '.join(str(int(i)) for i in np.unravel_index(at, shape))}]"


def _split(flat):
    """Each chain cut in two halves (split chains), shape (2 chains, draw // 2, entry)."""
    half = flat.shape[1] // 2
    return np.concatenate([flat[:, :half], flat[:, flat.shape[1] - half:]], axis=0)


def _rank_normal(flat):
    """Rank-normalised draws: ``Phi^{-1}((rank - 3/8) / (S + 1/4))`` over all draws of each
    entry (average ranks for ties), Vehtari et al. (2021), eq. 14."""
    from scipy.stats import norm, rankdata

    shape = flat.shape
    ranks = rankdata(flat.reshape(-1, shape[2]), axis=0)
    return norm.ppf((ranks - 0.375) / (ranks.shape[0] + 0.25)).reshape(shape)


def _rhat(flat):
    """Split R-hat of (chain, draw, entry) draws (Gelman et al. 2013, eq. 11.4)."""
    chains = _split(flat)
    n = chains.shape[1]
    within = chains.var(axis=1, ddof=1).mean(axis=0)
    between = n * chains.mean(axis=1).var(axis=0, ddof=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.sqrt(((n - 1) / n * within + between / n) / within)


def effective_sample_size(flat):
    """ESS of each entry of (chain, draw, entry) draws: the autocorrelations of all chains
    combined (Vehtari et al. 2021, eq. 10, by FFT) summed in Geyer's (1992) initial monotone
    sequence of pairs."""
    n_chains, n_draws, n_entries = flat.shape
    if n_draws < 4:  # no autocorrelation to estimate
        return np.full(n_entries, np.nan)
    centred = flat - flat.mean(axis=1, keepdims=True)
    size = 1 << (2 * n_draws - 1).bit_length()
    spectrum = np.fft.rfft(centred, n=size, axis=1)
    autocov = np.fft.irfft(spectrum * np.conj(spectrum), n=size, axis=1)[:, :n_draws] / n_draws
    within = autocov[:, 0].mean(axis=0) * n_draws / (n_draws - 1)
    variance = (n_draws - 1) / n_draws * within
    if n_chains > 1:
        variance = variance + flat.mean(axis=1).var(axis=0, ddof=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        rho = 1.0 - (within - autocov.mean(axis=0)) / variance       # (lag, entry)
        n_pairs = n_draws // 2
        pairs = rho[:2 * n_pairs:2] + rho[1:2 * n_pairs:2]
        positive = np.cumprod(pairs > 0.0, axis=0).astype(bool)
        pairs = np.minimum.accumulate(np.where(positive, pairs, np.inf), axis=0)
        tau = -1.0 + 2.0 * np.sum(np.where(positive, pairs, 0.0), axis=0)
        return n_chains * n_draws / np.maximum(tau, 1.0 / np.log10(n_chains * n_draws))


def chain_diagnostics(draws):
    """Per variable: rank-normalised split R-hat (the larger of the bulk and the folded
    draws') and bulk ESS (Vehtari et al. 2021) of every non-constant entry (NaN for a
    constant one), as a dict name -> (rhat, ess) of arrays of the entry shape."""
    out = {}
    for name, values in draws.items():
        values = np.asarray(values)
        flat, varying = _varying(values)
        rhat = np.full(flat.shape[2], np.nan)
        ess = np.full(flat.shape[2], np.nan)
        if varying.any() and values.shape[1] >= MIN_RHAT_DRAWS:
            chosen = flat[:, :, varying]
            folded = np.abs(chosen - np.median(chosen, axis=(0, 1)))
            ranked = _rank_normal(chosen)
            rhat[varying] = np.fmax(_rhat(ranked), _rhat(_rank_normal(folded)))
            ess[varying] = effective_sample_size(_split(ranked))
        out[name] = (rhat.reshape(values.shape[2:]), ess.reshape(values.shape[2:]))
    return out


def mcse_mean(values):
    """Monte Carlo standard error of the mean of each entry of a (chain, draw, ...) array:
    ``sd / sqrt(ESS)`` (0 for a constant entry)."""
    values = np.asarray(values, dtype=float)
    flat, varying = _varying(values)
    out = np.zeros(flat.shape[2])
    if varying.any():
        chosen = flat[:, :, varying]
        out[varying] = chosen.std(axis=(0, 1)) / np.sqrt(effective_sample_size(chosen))
    return out.reshape(values.shape[2:])


def mcse_sd(values):
    """Monte Carlo standard error of the standard deviation of each entry: the delta method
    on the MCSE of the mean of the squared deviations, ``se(sd) = se(var) / (2 sd)``."""
    values = np.asarray(values, dtype=float)
    deviation = values - values.mean(axis=(0, 1))
    sd = np.sqrt(np.mean(deviation**2, axis=(0, 1)))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(sd > 0.0, mcse_mean(deviation**2) / (2.0 * sd), 0.0)


@dataclass
class ExactDraws:
    """Draws from an exact alpha-posterior.

    ``model`` is the estimator (a clone) prepared on the data, for its labels; ``draws``
    maps the names of its ``sample_posterior`` to arrays of shape (chain, draw, ...);
    ``stats`` holds per-draw sampler statistics of the same leading shape;
    ``rao_blackwell_pip`` (spike-and-slab) the conditional inclusion probabilities averaged
    over batches of sweeps, shape (chain, batch, feature); ``reference_fit`` (mixtures, LDA)
    the variational fit whose components the draws were matched to, which
    ``compare_to_exact`` then reads instead of fitting again.
    """

    model: object
    draws: dict
    method: str
    stats: dict = field(default_factory=dict)
    rao_blackwell_pip: np.ndarray | None = None
    info: dict = field(default_factory=dict)
    iid: bool = False
    reference_fit: object | None = None

    @property
    def n_chains(self):
        return next(iter(self.draws.values())).shape[0]

    @property
    def n_divergent(self):
        """NUTS's divergent transitions over all chains (0 for the Gibbs samplers)."""
        return int(np.sum(self.stats.get("diverging", 0)))

    def inclusion_probabilities(self):
        """PIPs and their Monte Carlo SEs: the Rao-Blackwellised average of the conditional
        probabilities, its SE from the spread of the batch means (chains x batches), or the
        mean of the indicator draws."""
        if self.rao_blackwell_pip is not None:
            batches = self.rao_blackwell_pip.reshape(-1, self.rao_blackwell_pip.shape[-1])
            se = batches.std(axis=0, ddof=1) / np.sqrt(len(batches)) if len(batches) > 1 \
                else np.zeros(batches.shape[1])
            return batches.mean(axis=0), se
        inclusion = self.draws["inclusion"]
        return inclusion.mean(axis=(0, 1)), mcse_mean(inclusion)

    @cached_property
    def diagnostics(self):
        """:func:`chain_diagnostics` of the draws (computed once: the warning and the
        InferenceData's attributes both read it)."""
        return chain_diagnostics(self.draws)

    def warn_if_not_mixed(self):
        """A :class:`MixingWarning` naming the worst parameter (by its indices) when R-hat >
        1.01 or the bulk ESS is under 100 per chain, i.e. under ``100 n_chains`` in all (one
        chain: split R-hat, its two halves), or when either could not be computed for a
        parameter that varies (too few draws); independent draws are not checked."""
        if self.iid:
            return
        n_chains, n_draws = next(iter(self.draws.values())).shape[:2]
        worst_rhat, worst_ess, undefined = (1.0, ""), (np.inf, ""), []
        for name, (rhat, ess) in self.diagnostics.items():
            shape = np.shape(rhat)
            if not np.isnan(rhat).all():  # inf (chains stuck apart) is the worst, not a pass
                at = int(np.nanargmax(np.ravel(rhat)))
                if np.ravel(rhat)[at] > worst_rhat[0]:
                    worst_rhat = (float(np.ravel(rhat)[at]), _entry(name, shape, at))
            if not np.isnan(ess).all():
                at = int(np.nanargmin(np.ravel(ess)))
                if np.ravel(ess)[at] < worst_ess[0]:
                    worst_ess = (float(np.ravel(ess)[at]), _entry(name, shape, at))
            _, varying = _varying(np.asarray(self.draws[name]))
            missing = np.flatnonzero(varying & (np.isnan(np.ravel(rhat))
                                                | np.isnan(np.ravel(ess))))
            if missing.size:
                undefined.append(_entry(name, shape, int(missing[0]))
                                 + (f" (and {missing.size - 1} more)" if missing.size > 1
                                    else ""))
        problems = []
        if n_draws < MIN_ESS_DRAWS:
            problems.append(
                f"R-hat and the bulk ESS could not be computed from {n_draws} draw"
                f"{'s' if n_draws > 1 else ''} per chain (split R-hat needs at least "
                f"{MIN_RHAT_DRAWS}, the bulk ESS at least {MIN_ESS_DRAWS})")
        elif undefined:
            problems.append(f"R-hat or the bulk ESS could not be computed for "
                            f"{', '.join(undefined)}")
        if worst_rhat[0] > RHAT_LIMIT:
            problems.append(f"R-hat {worst_rhat[0]:.3f} > {RHAT_LIMIT} for {worst_rhat[1]}")
        threshold = ESS_PER_CHAIN * n_chains
        if worst_ess[0] < threshold:
            problems.append(
                f"bulk ESS {worst_ess[0]:.0f} < {threshold} ({ESS_PER_CHAIN} per chain x "
                f"{n_chains} chain{'s' if n_chains > 1 else ''}) for {worst_ess[1]}")
        if self.n_divergent:  # NUTS: the draws may miss a region of high curvature
            problems.append(f"{self.n_divergent} divergent transitions")
        if problems:
            mixed = not (worst_rhat[0] > RHAT_LIMIT or worst_ess[0] < threshold
                         or self.n_divergent)
            verdict = ("the mixing of the chains could not be checked" if mixed
                       else "the chains have not mixed" if n_chains > 1
                       else "the chain has not mixed")
            more_chains = (" Run 2 or more chains (n_chains=1 now): one chain's split R-hat "
                           "does not see a mode it never visited." if n_chains == 1 else "")
            warnings.warn(
                f"sample_exact ({self.method}): {verdict}: "
                f"{'; '.join(problems)}. Draw more (n_draws={n_draws} now), thin them "
                f"(thin=), or tune longer (n_tune=) before reading the draws.{more_chains}",
                MixingWarning, stacklevel=caller_stacklevel())

    def to_inference_data(self):
        """The draws as ``arviz.InferenceData``: ``posterior`` (the names and dimensions of
        :func:`alphavb.to_inference_data`), ``sample_stats`` (the sampler's per-draw
        statistics), and in the posterior's attributes the estimator, ``alpha``, the
        sampler, and the largest R-hat and smallest bulk ESS."""
        az = _arviz()
        from ..inference_data import draw_dimensions

        posterior = {name: (values.astype(np.int8) if values.dtype == bool else values)
                     for name, values in self.draws.items()}
        # one chain's draws: the (sample, ...) shape that draw_dimensions reads
        dims, coords = draw_dimensions(self.model, {name: np.asarray(values)[0]
                                                for name, values in self.draws.items()})
        with warnings.catch_warnings():  # arviz guesses the layout from fewer draws than
            # chains ("More chains than draws"); the arrays are (chain, draw, ...) already
            warnings.filterwarnings("ignore", message="More chains", category=UserWarning)
            data = az.from_dict(posterior=posterior, sample_stats=self.stats or None,
                                dims=dims, coords=coords)
        rhats, esses = [], []
        for rhat, ess in self.diagnostics.values():
            rhats.extend(np.ravel(rhat)[np.isfinite(np.ravel(rhat))])
            esses.extend(np.ravel(ess)[np.isfinite(np.ravel(ess))])
        data.posterior.attrs.update({
            "estimator": type(self.model).__name__,
            "alpha": float(getattr(self.model, "alpha", np.nan)),
            "sampler": self.method,
            "max_rhat": float(max(rhats)) if rhats else np.nan,
            "min_ess_bulk": float(min(esses)) if esses else np.nan,
            **({"n_divergent": self.n_divergent} if "diverging" in self.stats else {}),
            **{key: value for key, value in self.info.items()
               if isinstance(value, (int, float, str))},
        })
        return data
