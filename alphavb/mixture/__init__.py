"""alpha-VB mixture models."""

from ._gaussian_mixture import AlphaGaussianMixture

__all__ = ["AlphaGaussianMixture"]
