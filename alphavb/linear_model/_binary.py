"""What the two binary classifiers (:class:`~alphavb.AlphaSpikeSlabClassifier`,
:class:`~alphavb.AlphaSuSiEClassifier`) share: the probability of a logit that is normal
under ``q``, and ``predict`` and ``score`` from ``predict_proba``."""

import numpy as np
from scipy.special import expit


def moderated_sigmoid(mean, variance):
    """``E[sigmoid(t)]`` for ``t ~ N(mean, variance)`` by MacKay's (1992) probit
    approximation, ``sigmoid(mean / sqrt(1 + pi variance / 8))``."""
    return expit(mean / np.sqrt(1.0 + np.pi * variance / 8.0))


class BinaryPredictionsMixin:
    """``predict`` and ``score`` from the estimator's ``predict_proba(X, covariates)``, and
    scikit-learn's tag of a classifier of two classes only."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags

    def predict(self, X, covariates=None):
        """The more probable class under :meth:`predict_proba`."""
        positive = self.predict_proba(X, covariates)[:, 1]
        return self.classes_[(positive > 0.5).astype(int)]

    def score(self, X, y, sample_weight=None, covariates=None):
        """Mean accuracy of :meth:`predict` on ``X`` (and ``covariates``) against ``y``."""
        from sklearn.metrics import accuracy_score

        return accuracy_score(y, self.predict(X, covariates), sample_weight=sample_weight)
