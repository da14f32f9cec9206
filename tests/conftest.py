"""Shared fixtures: a tiny random BERT on disk (session-scoped) and offline Hugging Face settings."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
# Under xdist each test process started torch with a thread per core: `-n 2` on two cores ran four threads
# that wait on each other (the MiniLM story took 275 s in the suite, 122 s alone). Each process, and the
# servers and workers it starts (they inherit the variable), gets its share of the cores instead.
_PROCESSES = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT") or 1)
if _PROCESSES > 1:
    _share = str(max(1, len(os.sched_getaffinity(0)) // _PROCESSES))
    for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(_var, _share)
# Test helpers (store/store_helpers) are plain modules next to the tests; with
# --import-mode=importlib the test folders are not on sys.path by themselves.
sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parent / "store"))

from xmd.core.tinymodel import build_tiny_model  # noqa: E402 (after the thread share above)

# Real HateXplain rows (../shared/data/hatexplain, read-only beside the checkout): the tests that read them and
# bench/real_data/hatexplain.py find the same folder, wherever the checkout was cloned on this machine.
_HATEXPLAIN = [Path(__file__).resolve().parents[2] / "shared/data/hatexplain", Path("/work/shared/data/hatexplain")]
HATEXPLAIN_DIR = next((p for p in _HATEXPLAIN if (p / "val.csv").exists()), _HATEXPLAIN[-1])
os.environ.setdefault("XMD_HATEXPLAIN_DIR", str(HATEXPLAIN_DIR))


# The tiers. A test's folder says its tier, so nobody has to remember a marker: `make check` runs
# -m "not (slow or integration or e2e or bench or postgresql)", `make test` everything. A test run on both
# databases (the db_url fixture) is marked postgresql in its PostgreSQL half. LONG names the few tests in the
# fast folders that take tens of seconds on two cores (measured with --durations=0); they stay in `make test`.
FOLDER_TIER = {"integration": "integration", "workers": "integration", "e2e": "e2e"}
LONG = frozenset(
    f"{file}::{test}"
    for file, tests in {
        "unit/test_training.py": (
            "test_attribution_objective_lowers_the_gradient_share",
            "test_erasure_objective_makes_the_prediction_ignore_the_word",
            "test_a_fine_tune_from_a_base_model_repeats_for_its_seed",
        ),
        "unit/test_training_speed.py": (
            "test_attribution_every_k_batches_runs_the_second_derivative_on_those_batches_only",
            "test_attribution_on_a_subset_of_feedback_rows_still_trains_the_term",
            "test_bucketed_epochs_differ_but_the_run_repeats",
            "test_mixed_precision_autocasts_only_where_bf16_is_native",  # 6 cases
        ),
        "unit/test_graphs.py": ("test_a_run_through_the_static_step_repeats_the_eager_run",),
        "unit/test_controls.py": (  # one comparison: 9 retrains
            "test_arms_share_batches_steps_and_seeds",
            "test_debug_arm_equals_xmd_debug_and_lambda0_equals_plain_continued_training",
            "test_comparison_result_shape_and_files",
            "test_strip_is_each_lambda0_model_predicting_without_the_words",
            "test_comparison_never_overwrites_and_checks_its_settings",
        ),
        "unit/test_cli_controls.py": ("test_debug_with_controls_and_seeds",),
        "unit/test_cli.py": ("test_train_debug_evaluate",),
        "unit/test_calibrate.py": (
            "test_where_a_retrain_would_take_graphed_steps_the_calibration_times_their_replays",
            "test_every_kind_is_timed_on_a_copy_and_the_model_is_left_as_it_was",
            "test_a_cancel_raised_by_the_hook_stops_the_timing",
        ),
        "unit/test_attribution.py": ("test_integrated_gradients_matches_captum_whatever_the_pass_size",),
        "api/test_fuzz.py": ("test_no_server_errors",),  # schemathesis over every route, per role
        "api/test_api_types.py": ("test_generated_api_types_are_current",),  # node generates the types
        "api/test_feedback_bulk_import.py": ("test_import_of_100k_task_entries_in_one_request",),
        "api/test_limits.py": ("test_catastrophic_regex_does_not_stall_other_requests",),
        "api/test_disconnect.py": ("test_health_answers_at_once_and_waiting_requests_resume_when_the_pool_frees",),
        "api/test_event_streams.py": ("test_hundred_streams_share_one_poller_and_leave_the_api_responsive",),
        "api/test_retrain_vs_parent.py": (  # real retrains through the job body
            "test_a_retrain_version_carries_its_numbers_against_the_parent",
            "test_without_an_eval_set_a_held_out_share_is_measured",
        ),
    }.items()
    for test in tests
)


# Timing tests: each loads the service on purpose and measures how fast it still answers, so a second test
# process on the same two cores makes them flaky. `make test` runs them on their own after the rest (-m serial).
SERIAL = frozenset(
    {
        "api/test_health_probe.py::test_a_check_past_its_budget_is_slow_and_a_refused_one_unavailable",
        "api/test_health_probe.py::test_the_route_says_degraded_when_the_database_is_slow",
        "api/test_health_under_load.py::test_a_late_health_answer_says_degraded",
        "api/test_event_streams.py::test_hundred_streams_share_one_poller_and_leave_the_api_responsive",
        "api/test_disconnect.py::test_health_answers_at_once_and_waiting_requests_resume_when_the_pool_frees",
        "api/test_limits.py::test_catastrophic_regex_does_not_stall_other_requests",
        "api/test_limits.py::test_statement_past_its_budget_is_stopped_with_408",
    }
)


# Under xdist (`make test` runs `-n 2 --dist loadfile`) each file goes whole to one worker, in collection
# order; sending the longest files first keeps both cores busy to the end (longest-first scheduling).
# (--dist loadgroup would keep the browser stories on one process, but xdist 3.8 writes its group names
# to a node attribute pytest 9 no longer reads.)
# The folders are ordered by their measured cost per file, the largest single file first.
FIRST = ("integration/test_demo_minilm.py", "e2e", "integration", "workers", "bench")


def _cost_rank(rel: Path) -> int:
    path = rel.as_posix()
    for rank, prefix in enumerate(FIRST):
        if path == prefix or path.startswith(prefix + "/"):
            return rank
    return len(FIRST) + (0 if any(key.startswith(path + "::") for key in LONG) else 1)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object | None:
    """`--dist loadfile`, except that the browser stories go to one process together: every process that
    runs one starts its own server, worker and Hub for the session (20-50 s on two cores)."""
    if config.getoption("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class OneBrowserProcess(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return "tests/e2e" if nodeid.startswith("tests/e2e/") else super()._split_scope(nodeid)

    return OneBrowserProcess(config, log)  # type: ignore[arg-type]


SERIAL_FILES = frozenset(key.split("::")[0] for key in SERIAL)


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """`-m serial` (make test's second run) imports only the files that hold timing tests: collecting the
    whole suite again took half a minute."""
    if config.getoption("markexpr") != "serial" or collection_path.suffix != ".py":
        return None
    here = Path(__file__).resolve().parent
    path = collection_path.resolve()
    if here not in path.parents or not path.name.startswith("test_"):
        return None
    return path.relative_to(here).as_posix() not in SERIAL_FILES or None


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).resolve().parent
    ranks: dict[str, int] = {}
    for item in items:
        path = Path(str(item.path)).resolve()
        if here not in path.parents:
            continue
        rel = path.relative_to(here)
        tier = FOLDER_TIER.get(rel.parts[0])
        if tier is not None:
            item.add_marker(getattr(pytest.mark, tier))
        key = f"{rel.as_posix()}::{getattr(item, 'originalname', item.name)}"
        if key in LONG:
            item.add_marker(pytest.mark.slow)
        if key in SERIAL:
            item.add_marker(pytest.mark.serial)
        callspec = getattr(item, "callspec", None)
        if callspec is not None and callspec.params.get("db_url") == "postgresql":
            item.add_marker(pytest.mark.postgresql)
        ranks[item.nodeid] = _cost_rank(rel)
    items.sort(key=lambda item: ranks.get(item.nodeid, len(FIRST) + 1))  # stable: file order kept within a rank


@pytest.fixture(scope="session")
def tiny_model_dir(tmp_path_factory) -> Path:
    return build_tiny_model(tmp_path_factory.mktemp("tiny") / "model")


@pytest.fixture(scope="session")
def tiny_three_class_dir(tmp_path_factory) -> Path:
    return build_tiny_model(tmp_path_factory.mktemp("tiny3") / "model", labels=("neg", "neu", "pos"))


STANDIN_HIDDEN, STANDIN_LAYERS = 128, 2


@pytest.fixture(scope="session")
def demo_standin_dir(tmp_path_factory) -> Path:
    """What the ``xmd serve --demo`` tests fine-tune instead of MiniLM (``--demo-model``): a random BERT
    that loads at once and whose fine-tuning step still lasts a fraction of a second on two cores (about
    1 s at load 6, against MiniLM's several), so a test can watch the steps and stop a server half-way.
    The real MiniLM's fine-tune is tested by tests/integration/test_serve.py and test_demo_minilm.py, and
    timed by bench/first_start/first_start.py."""
    path = tmp_path_factory.mktemp("standin") / "model"
    return build_tiny_model(path, hidden_size=STANDIN_HIDDEN, layers=STANDIN_LAYERS)


@pytest.fixture()
def tiny(tiny_model_dir):
    from xmd.core.modeling import load_model

    return load_model(tiny_model_dir, device="cpu")
