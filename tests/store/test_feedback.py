"""Feedback: event log + current state in one transaction, concurrency, conversion to/from FeedbackSet."""

from __future__ import annotations

import threading

import pytest
from sqlalchemy import func, select
from xmd.core.feedback import FeedbackSet
from xmd.core.types import Action, FeedbackError, InstanceFeedback, Scope, TaskFeedback
from xmd.core.types import Example as CoreExample
from xmd.datasets import service as datasets
from xmd.feedback import service as feedback
from xmd.feedback.models import Feedback, FeedbackEvent, FeedbackLevel
from xmd.projects import service as projects
from xmd.users import service as users


@pytest.fixture()
def setup(db):
    project = projects.create(db_session=db, name="p", labels=["neg", "pos"], model_source="m")
    ds = datasets.add_dataset(
        db_session=db,
        project=project,
        name="train",
        role="train",
        examples=[
            CoreExample(id="r1", text="Spielberg made a great movie", label=1),
            CoreExample(id="r2", text="boring plot, bad acting", label=0),
        ],
    )
    rows = datasets.list_examples(db_session=db, dataset_id=ds.id)
    user = users.create_user(db_session=db, name="ann", role="annotator")
    return project, ds, rows, user


def test_instance_and_task_feedback(db, setup):
    project, _ds, (r1, _r2), user = setup
    fb = feedback.set_feedback(
        db_session=db, project=project, action="remove", example=r1, word_index=0, user_id=user.id
    )
    assert fb.level is FeedbackLevel.INSTANCE and fb.word == "Spielberg" and fb.action is Action.REMOVE
    assert fb.key == feedback.instance_key(r1.id, 0) and fb.updated_by == user.id
    t = feedback.set_feedback(db_session=db, project=project, action=Action.REMOVE, word="Spielberg", label=1)
    assert t.level is FeedbackLevel.TASK and t.word == "spielberg" and t.scope is Scope.ALL and t.label == 1
    feedback.set_feedback(db_session=db, project=project, action="add", word="great", scope="correct")

    # Changing one's mind updates the current row and appends to the log.
    again = feedback.set_feedback(
        db_session=db, project=project, action="add", example=r1, word_index=0, user_id=user.id
    )
    assert again.id == fb.id and again.action is Action.ADD
    assert [e.action for e in feedback.history(db_session=db, project_id=project.id, key=fb.key)] == [
        Action.REMOVE,
        Action.ADD,
    ]
    cur = feedback.list_feedback(db_session=db, project_id=project.id)
    assert [c.key for c in cur] == [t.key, "t:great::correct", fb.key]  # ordered by last event
    assert len(feedback.list_feedback(db_session=db, project_id=project.id, level="task")) == 2
    assert [c.key for c in feedback.list_feedback(db_session=db, project_id=project.id, example_id=r1.id)] == [fb.key]
    assert [c.key for c in feedback.list_feedback(db_session=db, project_id=project.id, word="GREAT")] == [
        "t:great::correct"
    ]

    # Reset removes the current row and is logged.
    reset = {"action": "reset", "example": r1, "word_index": 0, "user_id": user.id}
    assert feedback.set_feedback(db_session=db, project=project, **reset) is None
    assert feedback.get(db_session=db, project_id=project.id, key=fb.key, owner=fb.owner) is None
    assert [e.action for e in feedback.history(db_session=db, project_id=project.id, key=fb.key)] == [
        Action.REMOVE,
        Action.ADD,
        Action.RESET,
    ]
    assert len(feedback.list_events(db_session=db, project_id=project.id)) == 5


def test_invalid_feedback_records_nothing(db, setup):
    project, _ds, (r1, _r2), _user = setup
    with pytest.raises(FeedbackError, match="out of range"):
        feedback.set_feedback(db_session=db, project=project, action="remove", example=r1, word_index=5)
    with pytest.raises(FeedbackError, match="single words"):
        feedback.set_feedback(db_session=db, project=project, action="remove", word="two words")
    with pytest.raises(FeedbackError, match="label"):
        feedback.set_feedback(db_session=db, project=project, action="remove", word="great", label=2)
    with pytest.raises(FeedbackError, match="unknown action"):
        feedback.set_feedback(db_session=db, project=project, action="delete", word="great")
    with pytest.raises(FeedbackError):
        feedback.set_feedback(db_session=db, project=project, action="add")
    other = projects.create(db_session=db, name="o", labels=["a"], model_source="m")
    with pytest.raises(FeedbackError, match="does not belong"):
        feedback.set_feedback(db_session=db, project=other, action="add", example=r1, word_index=0)
    assert db.scalar(select(func.count()).select_from(FeedbackEvent)) == 0


def test_to_and_from_feedback_set(db, setup):
    project, ds, (r1, r2), user = setup
    feedback.set_feedback(db_session=db, project=project, action="remove", example=r1, word_index=0)
    feedback.set_feedback(db_session=db, project=project, action="remove", word="spielberg")
    feedback.set_feedback(db_session=db, project=project, action="add", example=r2, word_index=4)
    feedback.set_feedback(db_session=db, project=project, action="add", word="great", label=1, scope="incorrect")
    fs = feedback.to_feedback_set(db_session=db, project=project, dataset_id=ds.id)
    assert fs.instance == [
        InstanceFeedback("r1", 0, Action.REMOVE),
        InstanceFeedback("r2", 4, Action.ADD),
    ]
    assert fs.task == [
        TaskFeedback("spielberg", Action.REMOVE, None, Scope.ALL),
        TaskFeedback("great", Action.ADD, 1, Scope.INCORRECT),
    ]
    assert fs.words == {("r1", 0): "Spielberg", ("r2", 4): "acting"}
    # It is a real core FeedbackSet: expansion to training targets works on the dataset's examples.
    examples = datasets.core_examples(db_session=db, dataset=ds)
    targets = fs.expand(examples, predictions={"r1": 1, "r2": 1}, num_labels=2)
    assert targets == {"r1": {0: Action.REMOVE}, "r2": {4: Action.ADD}}

    # Import into another project: same current state, one event per entry.
    other = projects.create(db_session=db, name="copy", labels=["neg", "pos"], model_source="m")
    ds2 = datasets.add_dataset(db_session=db, project=other, name="train", role="train", examples=examples)
    data = fs.to_json(examples)
    n = feedback.import_feedback_set(
        db_session=db, project=other, feedback=FeedbackSet.from_json(data), dataset_id=ds2.id, user_id=user.id
    )
    assert n == 4
    assert feedback.to_feedback_set(db_session=db, project=other, dataset_id=ds2.id).to_json() == fs.to_json()

    # A file whose ids or words do not match the dataset is rejected as a whole.
    bad = FeedbackSet(instance=[InstanceFeedback("nope", 0, Action.REMOVE)])
    with pytest.raises(FeedbackError, match="unknown example"):
        feedback.import_feedback_set(db_session=db, project=other, feedback=bad, dataset_id=ds2.id)
    moved = FeedbackSet(instance=[InstanceFeedback("r1", 1, Action.REMOVE)], words={("r1", 1): "Spielberg"})
    with pytest.raises(FeedbackError, match="now 'made'"):
        feedback.import_feedback_set(db_session=db, project=other, feedback=moved, dataset_id=ds2.id)
    assert len(feedback.list_feedback(db_session=db, project_id=other.id)) == 4


@pytest.mark.parametrize("level", ["instance", "task"])
def test_concurrent_writers_on_one_key(db, setup, session_factory, level):
    """20 threads, each with its own session, write the same key at once (adds, removes and resets):
    20 events, and the current row is the state of the last event (none if it was a reset), no exception."""
    project, _ds, (r1, _r2), user = setup
    n = 20
    barrier = threading.Barrier(n)
    errors: list[BaseException] = []

    def writer(i: int) -> None:
        with session_factory() as s:
            try:
                p = projects.get_or_raise(db_session=s, project_id=project.id)
                kw = {"example": s.get(type(r1), r1.id), "word_index": 2} if level == "instance" else {"word": "plot"}
                s.commit()  # give the connection back while waiting, as a request handler would not hold it
                barrier.wait(timeout=30)
                feedback.set_feedback(
                    db_session=s, project=p, action=("add", "remove", "reset")[i % 3], user_id=user.id, **kw
                )
            except BaseException as e:
                errors.append(e)

    threads = [threading.Thread(target=writer, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    key = feedback.instance_key(r1.id, 2) if level == "instance" else feedback.task_feedback_key("plot", None, "all")
    events = feedback.history(db_session=db, project_id=project.id, key=key)
    assert len(events) == n
    current = db.scalars(select(Feedback).where(Feedback.key == key)).all()
    if events[-1].action is Action.RESET:
        assert current == []
    else:
        assert len(current) == 1
        assert current[0].last_event_id == events[-1].id and current[0].action is events[-1].action


def test_the_people_count_probes_owners_and_matches_a_distinct_count(db, setup):
    """The Words page's majority denominator (a skip scan on (project_id, owner)) counts what
    ``count(DISTINCT owner)`` counts: each person once, however many rows they have, this project only."""
    from xmd.feedback.words import count_people

    project, _ds, (r1, _r2), user = setup
    other = projects.create(db_session=db, name="q", labels=["neg", "pos"], model_source="m")
    assert count_people(db, project.id) == 0
    people = [user] + [users.create_user(db_session=db, name=f"a{i}", role="annotator") for i in range(3)]
    for i, person in enumerate(people):
        for word in ("spielberg", "boring", "plot")[: i + 1]:
            feedback.set_feedback(db_session=db, project=project, action="remove", word=word, user_id=person.id)
    feedback.set_feedback(db_session=db, project=project, action="remove", example=r1, word_index=0, user_id=user.id)
    feedback.set_feedback(db_session=db, project=other, action="remove", word="x", user_id=people[1].id)
    feedback.set_feedback(db_session=db, project=project, action="remove", word="acting")  # no user: the default owner
    distinct = db.scalar(select(func.count(func.distinct(Feedback.owner))).where(Feedback.project_id == project.id))
    assert count_people(db, project.id) == distinct == 5
    assert count_people(db, other.id) == 1
