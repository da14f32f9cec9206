"""Team scale: Next and the agreement summary with 10 annotators on a large project, on PostgreSQL.

Why: issue 32 §7 asks that a person's *Next* answers within 50 ms (p95) and the agreement summary within
200 ms, kept incrementally, with 10 annotators on a 1M-example project. Protocol: a fresh PostgreSQL
database; ``--n`` synthetic examples (``bench.store_scale.synthetic``); ``--annotators`` accounts; the
whole training set assigned in queues of at most ``MAX_QUEUE_EXAMPLES`` examples with ``--overlap``
(every example to 2 people: 2n assignments); in the first queue each annotator has finished the first
``--done`` items of their part with 1–3 marks per example (two people agree on a mark with probability
``--agree``), imported in bulk through the feedback service, and the agreement has caught up. Then,
through the HTTP API in process (FastAPI's TestClient, real routes and sessions): ``--repeat`` rounds of
GET Next + PUT done, round robin over the annotators (Next timed), on a random-order queue and on a
disagreement-order one; and ``--repeat`` rounds of one click on a shared example followed by GET
agreement (timed: it reads the click into the statistics first), plus GET agreement with nothing new.

    python -m bench.team_scale.team_scale --n 1000000 > bench/team_scale/results/team_scale.json
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, func, select, text, update
from sqlalchemy.engine import make_url

from bench.benchlib import emit, load_average, log, xmd_commit
from bench.store_scale.synthetic import make_data

PG_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
NEXT_TARGET_MS = 50.0
AGREEMENT_TARGET_MS = 200.0


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return round(s[min(len(s) - 1, int(q * len(s)))], 2)


def summary(ms: list[float]) -> dict[str, Any]:
    return {
        "n": len(ms),
        "p50_ms": pct(ms, 0.5),
        "p95_ms": pct(ms, 0.95),
        "p99_ms": pct(ms, 0.99),
        "mean_ms": round(statistics.fmean(ms), 2),
    }


def _database() -> tuple[str, Any]:
    name = f"team_scale_{uuid.uuid4().hex[:8]}"
    admin = create_engine(PG_URL, isolation_level="AUTOCOMMIT")
    with admin.connect() as c:
        c.execute(text(f'CREATE DATABASE "{name}"'))
    return make_url(PG_URL).set(database=name).render_as_string(hide_password=False), admin


def _seed_progress(db: Any, q: Any, users: list[int], done: int, agree: float, rng: random.Random) -> dict[str, Any]:
    """Each annotator finishes their first ``done`` items of ``q`` with 1–3 marks per example."""
    from xmd.core.feedback import FeedbackSet
    from xmd.core.types import Action, InstanceFeedback
    from xmd.core.words import split_words
    from xmd.datasets.models import Example
    from xmd.feedback import service as feedback
    from xmd.projects.models import Project
    from xmd.teamwork.models import ItemStatus, QueueEvent, QueueItem

    t = time.perf_counter()
    cut = {}
    for u in users:
        ranks = db.scalars(
            select(QueueItem.rank)
            .where(QueueItem.queue_id == q.id, QueueItem.user_id == u)
            .order_by(QueueItem.rank)
            .offset(done - 1)
            .limit(1)
        ).first()
        cut[u] = ranks if ranks is not None else 0
        db.execute(
            update(QueueItem)
            .where(QueueItem.queue_id == q.id, QueueItem.user_id == u, QueueItem.rank <= cut[u])
            .values(status=ItemStatus.DONE)
        )
        db.execute(
            QueueEvent.__table__.insert().from_select(
                ["project_id", "queue_id", "user_id", "example_id", "status", "created_at"],
                select(
                    text(str(q.project_id)),
                    QueueItem.queue_id,
                    QueueItem.user_id,
                    QueueItem.example_id,
                    text("'done'"),
                    func.now(),
                ).where(QueueItem.queue_id == q.id, QueueItem.user_id == u, QueueItem.rank <= cut[u]),
            )
        )
    db.commit()
    rows = db.execute(
        select(QueueItem.example_id, QueueItem.user_id).where(
            QueueItem.queue_id == q.id, QueueItem.status == ItemStatus.DONE
        )
    ).all()
    by_example: dict[int, list[int]] = {}
    for eid, u in rows:
        by_example.setdefault(eid, []).append(u)
    texts = dict(db.execute(select(Example.id, Example.ext_id).where(Example.id.in_(list(by_example)))).all())
    lengths = {
        eid: len(split_words(t_)[0])
        for eid, t_ in db.execute(select(Example.id, Example.text).where(Example.id.in_(list(by_example)))).all()
    }
    sets = {u: FeedbackSet() for u in users}
    for eid, who in by_example.items():
        n = lengths[eid]
        picks = rng.sample(range(n), min(n, rng.randint(1, 3)))
        for u_i, u in enumerate(who):
            for p in picks:
                if u_i == 0 or rng.random() < agree:
                    sets[u].instance.append(InstanceFeedback(texts[eid], p, Action.REMOVE))
                else:
                    sets[u].instance.append(InstanceFeedback(texts[eid], (p + 1) % n, Action.ADD))
    project = db.get(Project, q.project_id)
    ds_id = db.scalar(select(Example.dataset_id).where(Example.id == next(iter(by_example))))
    events = 0
    for u, fs in sets.items():
        events += feedback.import_feedback_set(db_session=db, project=project, feedback=fs, dataset_id=ds_id, user_id=u)
    return {
        "finished_items": len(rows),
        "shared_examples": sum(len(w) >= 2 for w in by_example.values()),
        "feedback_events": events,
        "seed_s": round(time.perf_counter() - t, 1),
    }


def _plan(db: Any, q: Any, user_id: int) -> dict[str, Any]:
    """PostgreSQL's plan and server time for Next's query (median of 5): the cost without the load."""
    from xmd.datasets.models import Example
    from xmd.teamwork.models import ItemStatus, QueueItem

    stmt = (
        select(QueueItem.id, Example.text)
        .join(Example, Example.id == QueueItem.example_id)
        .where(QueueItem.queue_id == q.id, QueueItem.user_id == user_id, QueueItem.status == ItemStatus.LEFT)
        .order_by(QueueItem.rank)
        .limit(1)
    )
    sql = str(stmt.compile(dialect=db.get_bind().dialect, compile_kwargs={"literal_binds": True}))
    runs = [db.execute(text("EXPLAIN (ANALYZE, FORMAT JSON) " + sql)).scalar_one()[0] for _ in range(5)]
    nodes, node = [], runs[-1]["Plan"]
    while node is not None:
        nodes.append(node["Node Type"] + (f" using {node['Index Name']}" if "Index Name" in node else ""))
        node = (node.get("Plans") or [None])[0]
    return {"plan": nodes, "server_execution_ms": round(statistics.median(r["Execution Time"] for r in runs), 3)}


def run(args: argparse.Namespace) -> dict[str, Any]:
    from fastapi.testclient import TestClient
    from xmd.app import create_app
    from xmd.config import Settings
    from xmd.datasets import service as datasets
    from xmd.datasets.models import Example
    from xmd.db import make_engine, make_session_factory, upgrade
    from xmd.projects import service as projects
    from xmd.teamwork import flows, queues
    from xmd.teamwork.models import QueueOrder
    from xmd.users import service as users_service
    from xmd.users.models import Role

    url, admin = _database()
    res: dict[str, Any] = {
        "db": "postgresql",
        "n_examples": args.n,
        "annotators": args.annotators,
        "overlap": args.overlap,
        "loadavg_start": load_average(),
    }
    try:
        upgrade(url)
        engine = make_engine(url)
        factory = make_session_factory(engine)
        rng = random.Random(0)
        with factory() as db:
            project = projects.create(db_session=db, name="bench", labels=["neg", "pos"], model_source="m")
            t = time.perf_counter()
            ds = datasets.add_dataset(
                db_session=db, project=project, name="train", role="train", examples=make_data(args.n, rng)
            )
            res["add_dataset_s"] = round(time.perf_counter() - t, 1)
            log(f"{args.n:,} examples in {res['add_dataset_s']} s")
            people = [
                users_service.create_user(db_session=db, name=f"ann{i}", role=Role.ANNOTATOR)
                for i in range(args.annotators)
            ]
            tokens = {u.id: users_service.create_token(db_session=db, user=u)[1] for u in people}
            ids = [u.id for u in people]
            all_ids = list(db.scalars(select(Example.id).where(Example.dataset_id == ds.id).order_by(Example.id)))
            t = time.perf_counter()
            made = []
            step = queues.MAX_QUEUE_EXAMPLES
            for i in range(0, len(all_ids), step):
                chunk = all_ids[i : i + step]
                random.Random(i).shuffle(chunk)
                made.append(
                    queues.create(
                        db,
                        project_id=project.id,
                        name=f"q{i // step}",
                        ordering=QueueOrder.RANDOM,
                        seed=i,
                        overlap=args.overlap,
                        source={"dataset_id": ds.id},
                        example_ids=chunk,
                        user_ids=ids,
                        created_by=None,
                    )
                )
                db.commit()
                log(f"  queue {len(made)}: {len(chunk):,} examples")
            dis = queues.create(
                db,
                project_id=project.id,
                name="disputed first",
                ordering=QueueOrder.DISAGREEMENT,
                seed=1,
                overlap=args.overlap,
                source={"dataset_id": ds.id},
                example_ids=all_ids[: min(step, len(all_ids))],
                user_ids=ids,
                created_by=None,
            )
            db.commit()
            res["assign_s"] = round(time.perf_counter() - t, 1)
            res["queues"] = len(made) + 1
            res["assignments"] = int(db.scalar(text("SELECT count(*) FROM queue_items")))
            log(f"{res['assignments']:,} assignments in {res['assign_s']} s")
            res["seed"] = _seed_progress(db, made[0], ids, args.done, args.agree, rng)
            log(f"seeded: {res['seed']}")
            t = time.perf_counter()
            rounds = 0
            while True:
                rounds += 1
                out = flows.summary(db, project)
                if not out["pending"]:
                    break
            res["catch_up_s"] = round(time.perf_counter() - t, 1)
            res["catch_up_refreshes"] = rounds
            res["agreement_at_start"] = {k: out[k] for k in ("n_examples", "n_tokens", "alpha")}
            db.execute(text("ANALYZE"))
            db.commit()
            res["next_plan"] = _plan(db, made[0], ids[0])
            log(f"Next's plan: {res['next_plan']}")
            qid, dis_id, pid = made[0].id, dis.id, project.id
        log(f"caught up in {res['catch_up_s']} s: {res['agreement_at_start']}")
        with tempfile.TemporaryDirectory() as tmp:
            settings = Settings(data_dir=Path(tmp), database_url=url)
            app = create_app(settings, engine=engine, enqueue=lambda job, secrets=None: None, serve_ui=False)
            with TestClient(app) as client:
                h = {u: {"Authorization": f"Bearer {tok}"} for u, tok in tokens.items()}
                base: list[float] = []
                for i in range(args.repeat):
                    t = time.perf_counter()
                    client.get(f"/api/projects/{pid}/slices", headers=h[ids[i % len(ids)]])
                    base.append((time.perf_counter() - t) * 1000)
                res["baseline_route_ms"] = summary(base[5:])
                log(f"baseline route: {res['baseline_route_ms']}")
                res["next_ms"], res["next_cpu_ms"] = {}, {}
                for name, queue_id in (("random", qid), ("disagreement", dis_id)):
                    ms: list[float] = []
                    cpu: list[float] = []
                    for i in range(args.repeat):
                        u = ids[i % len(ids)]
                        t, c0 = time.perf_counter(), time.process_time()
                        r = client.get(f"/api/queues/{queue_id}/next", headers=h[u])
                        ms.append((time.perf_counter() - t) * 1000)
                        cpu.append((time.process_time() - c0) * 1000)
                        item = r.json()["item"]
                        client.put(
                            f"/api/queues/{queue_id}/items/{item['example_id']}", headers=h[u], json={"status": "done"}
                        )
                    res["next_ms"][name] = summary(ms[5:])
                    res["next_cpu_ms"][name] = summary(cpu[5:])
                    log(f"Next ({name}): {res['next_ms'][name]}")
                shared = [
                    r
                    for r in client.get(
                        f"/api/queues/{qid}/items", headers=h[ids[0]], params={"status": "done", "limit": 1000}
                    ).json()["items"]
                ]
                ms, quiet, cpu = [], [], []
                for i in range(args.repeat):
                    eid = shared[i % len(shared)]["example_id"]
                    client.put(
                        f"/api/examples/{eid}/feedback",
                        headers=h[ids[0]],
                        json={"word_index": i % 3, "action": ["add", "remove", "reset"][i % 3]},
                    )
                    t, c0 = time.perf_counter(), time.process_time()
                    r = client.get(f"/api/projects/{pid}/agreement", headers=h[ids[1]])
                    ms.append((time.perf_counter() - t) * 1000)
                    cpu.append((time.process_time() - c0) * 1000)
                    t = time.perf_counter()
                    client.get(f"/api/projects/{pid}/agreement", headers=h[ids[1]])
                    quiet.append((time.perf_counter() - t) * 1000)
                res["agreement_after_click_ms"] = summary(ms[5:])
                res["agreement_unchanged_ms"] = summary(quiet[5:])
                res["agreement_after_click_cpu_ms"] = summary(cpu[5:])
                res["agreement_at_end"] = {k: r.json()[k] for k in ("n_examples", "n_tokens", "alpha")}
                log(f"agreement after a click: {res['agreement_after_click_ms']}")
        engine.dispose()
    finally:
        with admin.connect() as c:
            c.execute(text(f'DROP DATABASE IF EXISTS "{make_url(url).database}" WITH (FORCE)'))
        admin.dispose()
    res["loadavg_end"] = load_average()
    return res


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, nargs="+", default=[1_000_000], help="examples in the project (one run each)")
    p.add_argument("--annotators", type=int, default=10)
    p.add_argument("--overlap", type=int, default=2)
    p.add_argument("--done", type=int, default=2000, help="items each annotator finished in the first queue")
    p.add_argument("--agree", type=float, default=0.7, help="chance a second annotator marks the same word")
    p.add_argument("--repeat", type=int, default=300, help="timed rounds per measure")
    args = p.parse_args()
    results = []
    for n in args.n:
        one = argparse.Namespace(**{**vars(args), "n": n})
        results.append(run(one))
    emit(
        {
            "study": "team_scale",
            "xmd_commit": xmd_commit(),
            "targets_ms": {"next_p95": NEXT_TARGET_MS, "agreement_p95": AGREEMENT_TARGET_MS},
            "results": results,
        }
    )


if __name__ == "__main__":
    main()
