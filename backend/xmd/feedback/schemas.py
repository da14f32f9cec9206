"""Feedback as the API takes and shows it."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field, model_validator

from xmd.core.rationales import FORMATS
from xmd.core.types import Action, Scope
from xmd.feedback.models import FeedbackLevel
from xmd.http.pagination import Page
from xmd.http.params import MAX_INT, BodyId


class InstanceIn(BaseModel):
    word_index: int = Field(ge=0, le=MAX_INT, description="position of the word in the example (as in the explanation)")
    action: Action


class TaskIn(BaseModel):
    word: str = Field(min_length=1, max_length=200)
    action: Action
    label: int | None = Field(
        default=None, ge=0, le=MAX_INT, description="only examples of this gold label (default: all)"
    )
    scope: Scope = Field(default=Scope.ALL, description="all, or only correctly / incorrectly predicted examples")


class _Click(BaseModel):
    """What was clicked and how: the fields a current-feedback row and an event row share."""

    id: int
    key: str
    level: FeedbackLevel
    example_id: int | None = Field(description="database id (what the API's example routes take)")
    word_index: int | None
    word: str | None
    label: int | None
    scope: Scope | None
    action: Action
    source: str | None = Field(
        default=None, description="null: a person's click; else the import it came from (simulated:…)"
    )


CLICK_FIELDS = tuple(_Click.model_fields)


class FeedbackOut(_Click):
    updated_by: str | None
    updated_at: datetime
    example_ext_id: str | None = Field(
        default=None, description="the example's id in its file: what every screen and the export show"
    )


class WriteOut(BaseModel):
    key: str
    action: Action
    event_id: int
    current: FeedbackOut | None = Field(description="the key's feedback now (null after a reset)")


class EventOut(_Click):
    user: str | None
    created_at: datetime
    example_ext_id: str | None = Field(
        default=None, description="the example's id in its file: what every screen and the export show"
    )


class FeedbackPage(Page[FeedbackOut]):
    pass


RATIONALE_FORMAT = "^(" + "|".join(("auto", *FORMATS)) + ")$"


class RationalesIn(BaseModel):
    """Instance feedback simulated from a rationale column of the dataset (evaluation mode)."""

    column: str = Field(min_length=1, max_length=200, description="the column with human rationales")
    tokens_column: str | None = Field(
        default=None, max_length=200, description="a token list the flags/positions refer to (e.g. post_tokens)"
    )
    format: str = Field(default="auto", pattern=RATIONALE_FORMAT, description="auto, binary, positions, words, spans")
    min_agreement: int | float = Field(
        default=0.5,
        gt=0,
        le=1000,
        description="annotators needed: a count (2), or a fraction of a row's annotators (0.5)",
    )
    only: Scope = Field(
        default=Scope.ALL, description="examples the current version predicts correctly / incorrectly, or all"
    )
    budget: int | None = Field(
        default=None, ge=1, le=MAX_INT, description="keep this many examples, drawn with the seed"
    )
    seed: int = Field(default=0, ge=0, le=2**31 - 1)
    remove_others: bool = Field(default=False, description="also *remove* on every other word of those examples")


class WordsIn(BaseModel):
    """Task feedback simulated from an uploaded word list (one word a line, optional weight)."""

    text: str = Field(min_length=1, max_length=1_000_000, description="the word list file's content")
    name: str = Field(default="list", min_length=1, max_length=200, description="its file name (the source tag)")
    action: Literal[Action.ADD, Action.REMOVE] = Action.REMOVE
    scope: Scope = Scope.ALL
    label: int | None = Field(default=None, ge=0, le=MAX_INT, description="only examples of this gold label")


class ImportIn(BaseModel):
    """One of ``feedback`` (an export file), ``rationales`` or ``words``; ``preview`` writes nothing."""

    dataset_id: BodyId = Field(description="instance entries name examples of this dataset by their file id")
    feedback: dict[str, Any] | None = Field(
        default=None, description="the export format: {instance: [...], task: [...]}"
    )
    rationales: RationalesIn | None = None
    words: WordsIn | None = None
    preview: bool = Field(default=False, description="only say what the import would touch; write nothing")

    @model_validator(mode="after")
    def _one_source(self) -> ImportIn:
        given = [k for k in ("feedback", "rationales", "words") if getattr(self, k) is not None]
        if len(given) != 1:
            raise ValueError(f"give exactly one of feedback, rationales, words (got {given or 'none'})")
        return self


class ImportOut(BaseModel):
    preview: bool
    imported: int = Field(description="events written (0 in a preview)")
    entries: int = Field(description="entries the import holds (what a commit writes)")
    source: str | None
    summary: dict[str, Any] | None = Field(
        default=None, description="what a simulated import touches (the core's ImportSummary)"
    )
    sample_rows: int | None = Field(
        default=None,
        description="a preview of a large dataset aligns its first rows only: how many (the counts are "
        "the sample's); null when the whole dataset was read",
    )
    dataset_rows: int | None = Field(default=None, description="rows of the dataset")
    job_id: str | None = Field(
        default=None,
        description="the import runs as this job (202): a rationale import of more rows than "
        "XMD_IMPORT_SYNC_ROWS; its result holds what was written",
    )


class PersonMark(BaseModel):
    """Someone's current mark, with their name: what the example view shows beside one's own."""

    key: str
    level: FeedbackLevel
    example_id: int | None
    word_index: int | None
    word: str | None
    label: int | None
    scope: Scope | None
    action: Action
    by: str = Field(description="who: the user's name, or the name of an import")
    mine: bool


MARK_FIELDS = ("key", "level", "example_id", "word_index", "word", "label", "scope", "action")


class TeamSettingsIO(BaseModel):
    """How the project's consensus is drawn from its people's marks, and whether they annotate blind."""

    policy: Literal["union", "majority", "at_least_k", "reviewed"] = "union"
    k: int | None = Field(default=None, ge=1, le=1000, description="for at_least_k: the marks a word needs")
    blind: bool = Field(default=False, description="annotators see others' marks on an example only once done")


class ExampleMarksOut(BaseModel):
    """Everyone's marks on one example, as the reader may see them (blind mode hides the others' until done)."""

    example_id: int
    blind: bool
    done: bool
    hidden: bool = Field(description="others' marks are hidden from this reader (blind mode, not done yet)")
    items: list[PersonMark]
    # The page envelope every list answers (one example's marks come whole: one page).
    total: int
    offset: int = 0
    limit: int


class DoneOut(BaseModel):
    example_id: int
    done: bool


class ConflictOut(BaseModel):
    key: str
    level: FeedbackLevel
    example_id: int | None
    example_ext_id: str | None = None
    dataset_id: int | None = None
    word_index: int | None
    word: str | None
    label: int | None
    scope: str | None
    raters: int = Field(description="people who saw it")
    votes: dict[str, list[str]] = Field(description="add / remove / none → who chose it")
    dispute: float = Field(description="1 − largest group / raters: 0 all agree")
    decision: str | None = None
    decided_action: str | None = None


class ConflictPage(Page[ConflictOut]):
    capped: bool = Field(default=False, description="the scan stopped at its cap: more rows exist than were read")


class DecideIn(BaseModel):
    key: str = Field(min_length=1, max_length=300)
    decision: Literal["accept", "reject", "edit"]
    action: Literal[Action.ADD, Action.REMOVE] | None = Field(
        default=None, description="edit: the action to keep; accept: which to keep on a tie"
    )


class DecideOut(BaseModel):
    key: str
    decision: str
    action: Action | None
    event_id: int
    reviewer: str


class ConsensusMarkOut(BaseModel):
    """One mark of the consensus (what a retrain trains on): a word of an example, or a task word."""

    level: FeedbackLevel
    example_id: int | None
    example_ext_id: str | None = None
    dataset_id: int | None = None
    word_index: int | None
    word: str | None
    label: int | None
    scope: str | None
    action: Literal[Action.ADD, Action.REMOVE]


class ConsensusOut(Page[ConsensusMarkOut]):
    """The consensus by the project's policy: its counts, and a page of its marks (``items``: instance
    marks by example and position, then task words; ``total`` counts them)."""

    policy: str
    k: int | None
    instance: int = Field(description="instance marks the consensus keeps")
    task: int = Field(description="task words the consensus keeps")
    conflicts: int = Field(description="ties the policy left out")
    contributors: dict[str, int] = Field(description="name → marks of that person's that were read")
    reviewed: int = Field(description="keys a reviewer has settled")
    examples: int = Field(description="examples whose marks were read")
    capped: bool = Field(
        description="the project has more marks than one request reads: the counts and items are those of the "
        "first examples (by id), each read whole"
    )
    hidden: bool = Field(
        default=False, description="blind mode: an annotator gets the counts, not the marks (items is empty)"
    )
