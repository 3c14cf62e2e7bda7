"""NUTS chains in NumPyro for the models whose exact alpha-posterior has no conjugate
sweep (the Gaussian mixture and LDA), and the matching of their components to the
variational ones (label switching).

The models sum the latent allocations out and put the likelihood, raised to ``alpha``, in
one ``numpyro.factor`` site (the same as ``numpyro.handlers.scale(scale=alpha)`` on it).
The chains run in 64-bit precision inside ``jax.enable_x64`` (the caller's JAX setting is
left as it was), one after another, each from its own draw of the variational posterior,
all of them on one compiled sampling loop (:func:`one_loop_for_all_chains`).
"""

import contextlib
import threading
from functools import partial

import numpy as np

from .._approximation import NUTS_MAX_PARAMETERS
from .._validation import bad_parameter

# NUTS here is for small problems: the largest number of free parameters it takes
MAX_PARAMETERS = NUTS_MAX_PARAMETERS
# the step size is adapted to this acceptance rate (numpyro's default 0.8 leaves
# divergences in the funnels of the mixtures' precisions)
TARGET_ACCEPT = 0.9


def numpyro_modules():
    """``(jax, numpyro)``, or an ImportError naming the extra (before any work is done)."""
    try:
        import jax
        import numpyro
    except ImportError as error:
        raise ImportError('sample_exact of a Gaussian mixture or LDA runs NUTS in NumPyro: '
                          'pip install "alphavb[exact]" (numpyro and jax)') from error
    return jax, numpyro


def check_size(owner, n_parameters, remedy):
    """A ValueError when the model has more free parameters than NUTS takes here."""
    if n_parameters > MAX_PARAMETERS:
        raise bad_parameter("sample_exact", "X", f"data whose {owner} has at most "
                            f"{MAX_PARAMETERS} free parameters", f"{n_parameters} of them",
                            fix=remedy)


def not_in_memory(requirement, X):
    """The ValueError for data in dask blocks: NUTS here is for small problems in memory."""
    return bad_parameter("sample_exact", "X", requirement, type(X).__name__,
                         fix="Compute the dask array first (NUTS here is for small problems).")


# while any run_nuts is in one_loop_for_all_chains (threads included: "depth" counts them),
# numpyro.util.maybe_jit is _shared_jit and "numpyro" is NumPyro's own, which _shared_jit
# calls again once the last run has ended (for a caller that kept a reference to it)
_SHARED_JIT = {"depth": 0, "numpyro": None, "wrappers": {}}
_SHARED_JIT_LOCK = threading.Lock()


@contextlib.contextmanager
def one_loop_for_all_chains():
    """Within it, NumPyro's chains run on one compiled sampling loop.

    NumPyro (0.22) runs chains one after another ("sequential") through ``fori_collect``,
    which wraps its loop in a new ``jax.jit`` for every chain (``numpyro.util.maybe_jit``);
    JAX keeps compiled programs per wrapper, so XLA compiled the same loop again for each
    chain: 4 chains of a two-component mixture, 4 compilations of 4-6 s each. Here the
    wrapper of a function with given options is made once and handed out again, so the loop
    is compiled once and every chain runs the same executable (the draws are bitwise those
    of separate compilations: the same program). Without ``numpyro.util.maybe_jit`` (another
    NumPyro) nothing changes.
    """
    import numpyro.util as util

    with _SHARED_JIT_LOCK:
        if _SHARED_JIT["depth"] == 0:
            own = getattr(util, "maybe_jit", None)
            if own is not None and own is not _shared_jit:
                _SHARED_JIT["numpyro"] = own
                util.maybe_jit = _shared_jit
        _SHARED_JIT["depth"] += 1
    try:
        yield
    finally:
        with _SHARED_JIT_LOCK:
            _SHARED_JIT["depth"] -= 1
            if _SHARED_JIT["depth"] == 0:
                if util.maybe_jit is _shared_jit:
                    util.maybe_jit = _SHARED_JIT["numpyro"]
                _SHARED_JIT["wrappers"] = {}  # the compiled loops go with the last run


def _shared_jit(fn, *args, **kwargs):
    """``numpyro.util.maybe_jit``, made once per function and options while a run shares
    them (unhashable options: a new wrapper, as NumPyro makes)."""
    with _SHARED_JIT_LOCK:
        numpyro_jit, sharing = _SHARED_JIT["numpyro"], _SHARED_JIT["depth"] > 0
    try:
        key = (fn, args, tuple(sorted(kwargs.items())))
        hash(key)
    except TypeError:
        sharing = False
    if not sharing:
        return numpyro_jit(fn, *args, **kwargs)
    with _SHARED_JIT_LOCK:
        wrapper = _SHARED_JIT["wrappers"].get(key)
        if wrapper is None:
            wrapper = _SHARED_JIT["wrappers"][key] = numpyro_jit(fn, *args, **kwargs)
    return wrapper


def run_nuts(model, initial_values, *, n_draws, n_tune, thin, rng, **data):
    """NUTS chains of the NumPyro ``model(**data)``, chain ``c`` started at the constrained
    site values ``initial_values[c]``.

    Returns
    -------
    samples : dict of str to ndarray
        Each sample site's draws, shape (chain, draw, ...).
    stats : dict of str to ndarray
        ``log_posterior`` (minus NUTS's potential energy: the log density of the
        unconstrained parameters, up to a constant), ``diverging`` and ``n_steps``
        (leapfrog steps), shape (chain, draw).
    """
    jax, numpyro = numpyro_modules()
    from numpyro.infer import MCMC, NUTS
    from numpyro.infer.util import ParamInfo, constrain_fn, potential_energy, unconstrain_fn

    # the model's priors are the estimator's, already checked: numpyro's argument checks would
    # run eagerly at every trace of the model, each op compiled on its own
    with jax.enable_x64(True), numpyro.validation_enabled(False):
        data = {name: jax.numpy.asarray(value) for name, value in data.items()}
        potential = partial(potential_energy, model, (), data)

        @jax.jit
        def start(values):
            """A chain's start: its unconstrained values, potential energy and gradient, in one
            compiled program (numpyro's own start-up evaluates them op by op, compiling each
            op, which was half of a first chain's time)."""
            unconstrained = unconstrain_fn(model, (), data, values)
            energy, gradient = jax.value_and_grad(potential)(unconstrained)
            return ParamInfo(unconstrained, energy, gradient)

        starts = [start({name: jax.numpy.asarray(value) for name, value in values.items()})
                  for values in initial_values]
        # several chains take their starts stacked on a leading axis, one chain its own
        init = (starts[0] if len(starts) == 1
                else jax.tree_util.tree_map(lambda *chains: jax.numpy.stack(chains), *starts))
        # a diagonal mass matrix over all sites ([] is what NUTS(model) makes of
        # dense_mass=False); the draws are mapped back to the sites' supports in the loop
        kernel = NUTS(potential_fn=potential, target_accept_prob=TARGET_ACCEPT, dense_mass=[])
        mcmc = MCMC(kernel, num_warmup=n_tune, num_samples=n_draws * thin, thinning=thin,
                    num_chains=len(initial_values), chain_method="sequential",
                    progress_bar=False, postprocess_fn=partial(constrain_fn, model, (), data))
        with one_loop_for_all_chains():
            mcmc.run(jax.random.PRNGKey(rng.randint(2**31 - 1)), init_params=init,
                     extra_fields=("potential_energy", "diverging", "num_steps"))
        samples = {name: np.asarray(value)
                   for name, value in mcmc.get_samples(group_by_chain=True).items()}
        fields = {name: np.asarray(value)
                  for name, value in mcmc.get_extra_fields(group_by_chain=True).items()}
    stats = {"log_posterior": -fields["potential_energy"], "diverging": fields["diverging"],
             "n_steps": fields["num_steps"]}
    return samples, stats


def match_components(signatures, reference):
    """The relabelling of every draw's components that best matches the variational ones.

    Parameters
    ----------
    signatures : ndarray of shape (chain, draw, K, m)
        What identifies a component in a draw (a mixture's means, a topic's word
        distribution), on a common scale.
    reference : ndarray of shape (K, m)
        The same for the variational components.

    Returns
    -------
    ndarray of shape (chain, draw, K)
        ``order[c, s, j]``: the component of draw ``(c, s)`` matched to variational
        component ``j`` (the assignment of least total squared distance, Stephens 2000's
        relabelling against a fixed reference).
    """
    from scipy.optimize import linear_sum_assignment

    n_chains, n_draws, n_components = signatures.shape[:3]
    flat = signatures.reshape(-1, n_components, signatures.shape[3])
    cost = np.sum((flat[:, :, None, :] - reference[None, None, :, :]) ** 2, axis=-1)
    order = np.empty((flat.shape[0], n_components), dtype=np.intp)
    for draw, matrix in enumerate(cost):
        rows, columns = linear_sum_assignment(matrix)
        order[draw, columns] = rows
    return order.reshape(n_chains, n_draws, n_components)


def relabel(values, order):
    """``values`` (chain, draw, K, ...) with its components in the order ``order``."""
    index = order.reshape(order.shape + (1,) * (values.ndim - 3))
    return np.take_along_axis(values, index, axis=2)
