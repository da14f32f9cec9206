"""xmd.core: the library behind xmd — explain, aggregate, give feedback, retrain, evaluate.

It imports no web, database or queue code, so everything here works from a notebook or the CLI.
"""

from xmd.core.aggregate import TaskAggregate, aggregate
from xmd.core.attribution import METHODS, explain
from xmd.core.controls import Comparison, ControlsConfig, run_comparison
from xmd.core.data import load_examples, save_examples
from xmd.core.evaluate import aopc, compare_metrics, evaluate_sets, plausibility
from xmd.core.feedback import FeedbackSet, expand_feedback, load_feedback, save_feedback
from xmd.core.modeling import LoadedModel, load_model, save_model
from xmd.core.normalize import normalize_scores, shares
from xmd.core.pipeline import RunResult, debug, fine_tune
from xmd.core.predict import predict_proba
from xmd.core.retrain import ERConfig, RetrainConfig, StepInfo, TrainConfig, TrainingCancelled, train_loop
from xmd.core.suspicion import WordStats
from xmd.core.types import (
    Action,
    DataError,
    Example,
    Explanation,
    FeedbackError,
    InstanceFeedback,
    ModelLoadError,
    Scope,
    TaskFeedback,
    XMDError,
)

__all__ = [
    "METHODS",
    "Action",
    "Comparison",
    "ControlsConfig",
    "DataError",
    "ERConfig",
    "Example",
    "Explanation",
    "FeedbackError",
    "FeedbackSet",
    "InstanceFeedback",
    "LoadedModel",
    "ModelLoadError",
    "RetrainConfig",
    "RunResult",
    "Scope",
    "StepInfo",
    "TaskAggregate",
    "TaskFeedback",
    "TrainConfig",
    "TrainingCancelled",
    "WordStats",
    "XMDError",
    "aggregate",
    "aopc",
    "compare_metrics",
    "debug",
    "evaluate_sets",
    "expand_feedback",
    "explain",
    "fine_tune",
    "load_examples",
    "load_feedback",
    "load_model",
    "normalize_scores",
    "plausibility",
    "predict_proba",
    "run_comparison",
    "save_examples",
    "save_feedback",
    "save_model",
    "shares",
    "train_loop",
]
