"""What the two binary classifiers (:class:`~alphavb.AlphaSpikeSlabClassifier`,
:class:`~alphavb.AlphaSuSiEClassifier`) share: the validation of their labels, covariates
and flat-prior design, the probability of a logit that is normal under ``q``, and
``predict`` and ``score`` from ``predict_proba``."""

import numpy as np
from scipy.special import expit
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import validate_data

from ._covariates import check_covariates, check_flat_design, refuse_separation


def covariate_count(Z):
    """The columns of the checked covariates ``Z`` (0 for None): ``n_covariates_in_``."""
    return 0 if Z is None else Z.shape[1]


def moderated_sigmoid(mean, variance):
    """``E[sigmoid(t)]`` for ``t ~ N(mean, variance)`` by MacKay's (1992) probit
    approximation, ``sigmoid(mean / sqrt(1 + pi variance / 8))``."""
    return expit(mean / np.sqrt(1.0 + np.pi * variance / 8.0))


class BinaryPredictionsMixin:
    """``predict`` and ``score`` from the estimator's ``predict_proba(X, covariates)``, and
    scikit-learn's tag of a classifier of two classes only."""

    def _binary_inputs(self, X, y, covariates, order="C"):
        """The validated ``X`` (float64, in ``order``), its squares, the 0/1 labels (of
        ``classes_``, which validation sets, as scikit-learn's classifiers do), the
        covariates ``Z`` (None without) and the flat-prior design (:meth:`_flat_design`);
        refuses other than two classes, a flat design without full rank, covariates that
        separate the classes and values whose squares overflow."""
        owner = type(self).__name__
        X, y = validate_data(self, X, y, dtype=np.float64, order=order)
        check_classification_targets(y)
        self.classes_, labels = np.unique(y, return_inverse=True)
        if len(self.classes_) != 2:
            raise ValueError(
                f"Only binary classification is supported by {owner}: y has "
                f"{len(self.classes_)} class(es); it needs 2. For more classes fit one model "
                "per class (e.g. sklearn.multiclass.OneVsRestClassifier).")
        Z = check_covariates(owner, covariates, X.shape[0])
        design = self._flat_design(X.shape[0], Z)
        check_flat_design(owner, design, self.fit_intercept)
        if covariate_count(Z):
            refuse_separation(owner, design, labels == 1)
        with np.errstate(over="ignore"):
            squares = X * X
        if not np.all(np.isfinite(squares)):
            raise ValueError(f"Input X of {owner} has values so large that their squares "
                             "overflow float64. Rescale it first (e.g. with "
                             "sklearn.preprocessing.StandardScaler).")
        return X, squares, labels, Z, design

    def _flat_design(self, n_samples, Z):
        """The flat-prior design: a column of ones (with ``fit_intercept``), then ``Z``."""
        ones = [np.ones((n_samples, 1))] if self.fit_intercept else []
        return np.hstack([*ones, np.zeros((n_samples, 0)) if Z is None else Z])

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
