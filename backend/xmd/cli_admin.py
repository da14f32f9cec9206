"""``xmd db``, ``xmd users``, ``xmd worker`` and ``xmd serve``: running and administering the service."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from xmd.cli import _print

USER_ACTIONS = {
    "create": "a user and their first token",
    "token": "another token for a user",
    "list": "every user",
    "tokens": "a user's tokens (never the secrets)",
    "revoke": "revoke a user's token --token-id",
    "role": "change a user's --role",
    "delete": "delete a user and their tokens",
}


def add_parsers(sub: Any) -> None:
    """Register the service's commands on the main subparsers."""
    p = sub.add_parser("db", help="database schema: upgrade (create/migrate), downgrade, current")
    p.add_argument("action", choices=["upgrade", "downgrade", "current"])
    p.add_argument("revision", nargs="?", default=None, help="target revision (default: head / one step down)")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("users", help="manage users and API tokens (the first admin is created here)")
    p.add_argument(
        "action",
        choices=list(USER_ACTIONS),
        help="; ".join(f"{k}: {v}" for k, v in USER_ACTIONS.items()),
    )
    p.add_argument("name", nargs="?", default=None)
    p.add_argument(
        "--role", default=None, choices=["admin", "annotator", "viewer"], help="create (default viewer), role"
    )
    p.add_argument("--expires-days", type=int, default=None, help="create, token: the new token expires after N days")
    p.add_argument("--token-id", type=int, default=None, help="revoke: the token's id (see `xmd users tokens NAME`)")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("worker", help="run a Celery worker for explain / retrain / evaluate / push jobs")
    p.add_argument(
        "-Q", "--queues", default=None, help="comma-separated queues (default: XMD_DEFAULT_QUEUE and XMD_RETRAIN_QUEUE)"
    )
    p.add_argument("-c", "--concurrency", type=int, default=1, help="jobs run at once (default 1: one model in memory)")
    p.add_argument("-P", "--pool", default="prefork", help="prefork (default; a crashed job spares the worker) | solo")
    p.add_argument("-l", "--loglevel", default="info")

    p = sub.add_parser("serve", help="run the API, the web UI and an embedded worker (--demo: with the demo project)")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--demo", action="store_true", help="prepare the demo project (fine-tunes MiniLM on first start)")
    p.add_argument("--no-worker", action="store_true", help="do not start an embedded worker (run `xmd worker`)")
    p.add_argument(
        "--demo-examples",
        type=int,
        default=None,
        help="--demo: training examples of the demo data (default 2000; fewer make a quicker, weaker demo)",
    )
    p.add_argument(
        "--demo-model",
        default=None,
        metavar="DIR",
        help="--demo: a model folder to fine-tune instead of the bundled all-MiniLM-L6-v2 (first start only)",
    )


def cmd_serve(args) -> None:
    from xmd.config import Settings
    from xmd.serve import DEMO_EXAMPLES, serve

    if args.demo_examples is not None and args.demo_examples < 16:
        raise SystemExit("--demo-examples must be at least 16")
    demo_model = None
    if args.demo_model is not None:
        demo_model = Path(args.demo_model).expanduser().resolve()
        if not (demo_model / "config.json").is_file():
            raise SystemExit(f"--demo-model: {args.demo_model} is not a model folder (no config.json in it)")
    serve(
        Settings.from_env(),
        host=args.host,
        port=args.port,
        demo=args.demo,
        worker=not args.no_worker,
        demo_examples=args.demo_examples or DEMO_EXAMPLES,
        demo_model=demo_model,
    )


def cmd_db(args) -> None:
    from xmd.config import Settings
    from xmd.db.engine import make_engine
    from xmd.db.migrate import current_revisions, downgrade, upgrade

    settings = Settings.from_env()
    engine = make_engine(settings.database_url, data_dir_path=settings.data_dir)
    url = engine.url
    if args.action == "upgrade":
        upgrade(url, args.revision or "head")
    elif args.action == "downgrade":
        downgrade(url, args.revision or "-1")
    revs = sorted(current_revisions(engine))
    where = url.render_as_string(hide_password=True)
    _print(args, {"database": where, "revisions": revs}, f"{where}: at {', '.join(revs) or 'no revision (empty)'}")


def cmd_users(args) -> None:
    from xmd.cli_users import run_users

    run_users(args, _print)


def cmd_worker(args) -> None:
    from workers.__main__ import run_worker

    queues = [q.strip() for q in args.queues.split(",") if q.strip()] if args.queues else None
    run_worker(queues=queues, concurrency=args.concurrency, pool=args.pool, loglevel=args.loglevel)


COMMANDS = {"db": cmd_db, "users": cmd_users, "worker": cmd_worker, "serve": cmd_serve}
