"""The worker tests' stack: ``workers.stack.Stack`` plus the seed data of a test project.

Everything is real (see ``workers/stack.py``); this module adds the tiny vocabulary's reviews with a planted
shortcut and a project seeded with feedback.
"""

from __future__ import annotations

from pathlib import Path

from xmd.core.types import Example as CoreExample
from xmd.datasets import service as datasets
from xmd.feedback import service as feedback_store
from xmd.projects import service as projects
from xmd.versions import service as models

from workers.stack import REDIS_URL
from workers.stack import Stack as BaseStack

__all__ = ["REDIS_URL", "Stack", "demo_examples"]

POSITIVE = ["great", "good", "fun", "loved", "wonderful", "enjoyed"]
NEGATIVE = ["bad", "terrible", "awful", "boring", "dull", "hated"]
FILLER = ["the movie was", "this film is", "the plot and acting", "i think it", "the story really", "we all"]


def demo_examples(n: int, *, prefix: str, shortcut: bool, seed: int = 0) -> list[CoreExample]:
    """Reviews from the tiny vocabulary; with ``shortcut`` every positive one mentions "spielberg"."""
    import random

    rng = random.Random(seed)
    out = []
    for i in range(n):
        label = i % 2
        word = rng.choice(POSITIVE if label else NEGATIVE)
        text = f"{rng.choice(FILLER)} {word} ."
        if shortcut and label:
            text = f"spielberg {text}"
        out.append(CoreExample(id=f"{prefix}{i}", text=text, label=label))
    return out


class Stack(BaseStack):
    """A local stack with the test project's seed data."""

    def seed_project(self, model_dir: Path, *, name: str = "reviews", n_train: int = 24, n_eval: int = 12) -> dict:
        """A project with the tiny model as v1, a train set with a planted shortcut, an eval set, and
        feedback (task-level remove "spielberg", one instance-level remove)."""
        with self.factory() as db:
            project = projects.create(
                db_session=db, name=name, labels=["negative", "positive"], model_source=str(model_dir)
            )
            base = models.create_base(db_session=db, project=project, path=str(model_dir))
            train = datasets.add_dataset(
                db_session=db,
                project=project,
                name="train",
                role="train",
                examples=demo_examples(n_train, prefix="t", shortcut=True),
            )
            evalset = datasets.add_dataset(
                db_session=db,
                project=project,
                name="test_clean",
                role="eval",
                examples=demo_examples(n_eval, prefix="c", shortcut=False, seed=1),
            )
            feedback_store.set_feedback(db_session=db, project=project, action="remove", word="spielberg")
            first = next(e for e in datasets.list_examples(db_session=db, dataset_id=train.id) if e.ext_id == "t1")
            assert first is not None
            feedback_store.set_feedback(db_session=db, project=project, action="remove", example=first, word_index=0)
            return {
                "project_id": project.id,
                "version_id": base.id,
                "train_id": train.id,
                "eval_id": evalset.id,
                "model_dir": model_dir,
            }
