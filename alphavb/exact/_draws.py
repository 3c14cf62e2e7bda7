"""What every exact sampler returns: draws by chain, the sampler's diagnostics, and their
``arviz.InferenceData``."""

import warnings
from dataclasses import dataclass, field

import numpy as np

# Vehtari, Gelman, Simpson, Carpenter & Bürkner (2021, Bayesian Analysis 16:667-718): R-hat
# below 1.01 and a bulk ESS of at least 100 per chain before trusting the draws
RHAT_LIMIT = 1.01
ESS_PER_CHAIN = 100


class MixingWarning(UserWarning):
    """The chains of an exact sampler have not mixed (R-hat or ESS); the message says which
    parameter and what to raise."""


def _arviz():
    try:
        import arviz as az
    except ImportError as error:
        raise ImportError('alphavb.exact needs ArviZ: pip install "alphavb[exact]"') \
            from error
    return az


def _varying(values):
    """The entries of a (chain, draw, ...) array that are not constant over all draws (R-hat
    and ESS are undefined for a constant)."""
    flat = values.reshape(values.shape[0], values.shape[1], -1).astype(float)
    return flat, np.ptp(flat, axis=(0, 1)) > 0.0


def chain_diagnostics(draws):
    """Per variable: rank-normalised split R-hat and bulk ESS of every non-constant entry
    (NaN for a constant one), as a dict name -> (rhat, ess) of arrays of the entry shape."""
    az = _arviz()
    out = {}
    for name, values in draws.items():
        values = np.asarray(values)
        flat, varying = _varying(values)
        rhat = np.full(flat.shape[2], np.nan)
        ess = np.full(flat.shape[2], np.nan)
        if varying.any() and values.shape[1] >= 4:
            chosen = flat[:, :, varying]
            dataset = az.convert_to_dataset({"v": chosen})
            rhat[varying] = np.asarray(az.rhat(dataset)["v"])
            ess[varying] = np.asarray(az.ess(dataset, method="bulk")["v"])
        out[name] = (rhat.reshape(values.shape[2:]), ess.reshape(values.shape[2:]))
    return out


def mcse_mean(values):
    """Monte Carlo standard error of the mean of each entry of a (chain, draw, ...) array
    (ArviZ's, from the ESS; 0 for a constant entry)."""
    az = _arviz()
    values = np.asarray(values, dtype=float)
    flat, varying = _varying(values)
    out = np.zeros(flat.shape[2])
    if varying.any():
        out[varying] = np.asarray(az.mcse(az.convert_to_dataset({"v": flat[:, :, varying]}),
                                          method="mean")["v"])
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
    over batches of sweeps, shape (chain, batch, feature).
    """

    model: object
    draws: dict
    method: str
    stats: dict = field(default_factory=dict)
    rao_blackwell_pip: np.ndarray | None = None
    info: dict = field(default_factory=dict)
    iid: bool = False

    @property
    def n_chains(self):
        return next(iter(self.draws.values())).shape[0]

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

    def diagnostics(self):
        return chain_diagnostics(self.draws)

    def warn_if_not_mixed(self):
        """A :class:`MixingWarning` naming the worst parameter when R-hat > 1.01 or the bulk
        ESS is under 100 per chain (independent draws are not checked)."""
        if self.iid or self.n_chains < 2:
            return
        worst_rhat, worst_ess = (1.0, ""), (np.inf, "")
        for name, (rhat, ess) in self.diagnostics().items():
            if np.isfinite(rhat).any():
                at = int(np.nanargmax(rhat.ravel()))
                if rhat.ravel()[at] > worst_rhat[0]:
                    worst_rhat = (float(rhat.ravel()[at]), f"{name}[{at}]")
            if np.isfinite(ess).any():
                at = int(np.nanargmin(ess.ravel()))
                if ess.ravel()[at] < worst_ess[0]:
                    worst_ess = (float(ess.ravel()[at]), f"{name}[{at}]")
        n_draws = next(iter(self.draws.values())).shape[1]
        problems = []
        if worst_rhat[0] > RHAT_LIMIT:
            problems.append(f"R-hat {worst_rhat[0]:.3f} > {RHAT_LIMIT} for {worst_rhat[1]}")
        if worst_ess[0] < ESS_PER_CHAIN * self.n_chains:
            problems.append(f"bulk ESS {worst_ess[0]:.0f} < {ESS_PER_CHAIN} per chain for "
                            f"{worst_ess[1]}")
        if problems:
            warnings.warn(
                f"sample_exact ({self.method}): the chains have not mixed: "
                f"{'; '.join(problems)}. Draw more (n_draws={n_draws} now), thin them "
                "(thin=), or tune longer (n_tune=) before reading the draws.",
                MixingWarning, stacklevel=3)

    def to_inference_data(self):
        """The draws as ``arviz.InferenceData``: ``posterior`` (the names and dimensions of
        :func:`alphavb.to_inference_data`), ``sample_stats`` (the sampler's per-draw
        statistics), and in the posterior's attributes the estimator, ``alpha``, the
        sampler, and the largest R-hat and smallest bulk ESS."""
        az = _arviz()
        from ..inference_data import _dimensions

        posterior = {name: (values.astype(np.int8) if values.dtype == bool else values)
                     for name, values in self.draws.items()}
        # one chain's draws: the (sample, ...) shape that _dimensions reads
        dims, coords = _dimensions(self.model, {name: np.asarray(values)[0]
                                                for name, values in self.draws.items()})
        data = az.from_dict(posterior=posterior, sample_stats=self.stats or None, dims=dims,
                            coords=coords)
        rhats, esses = [], []
        for rhat, ess in self.diagnostics().values():
            rhats.extend(np.ravel(rhat)[np.isfinite(np.ravel(rhat))])
            esses.extend(np.ravel(ess)[np.isfinite(np.ravel(ess))])
        data.posterior.attrs.update({
            "estimator": type(self.model).__name__,
            "alpha": float(getattr(self.model, "alpha", np.nan)),
            "sampler": self.method,
            "max_rhat": float(max(rhats)) if rhats else np.nan,
            "min_ess_bulk": float(min(esses)) if esses else np.nan,
            **{key: value for key, value in self.info.items()
               if isinstance(value, (int, float, str))},
        })
        return data
