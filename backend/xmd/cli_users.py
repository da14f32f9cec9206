"""``xmd users …``: users and the life cycle of their API tokens from the shell (what the admin API
routes do, for the first admin and for servers without a UI)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

from xmd.core.types import XMDError


class UsageError(XMDError):
    """A command-line argument is missing or names nothing."""


def _token_row(t: Any, active: bool) -> dict[str, Any]:
    return {
        "id": t.id,
        "name": t.name,
        "prefix": t.prefix,
        "created_at": t.created_at,
        "last_used_at": t.last_used_at,
        "expires_at": t.expires_at,
        "revoked_at": t.revoked_at,
        "active": active,
    }


def run_users(args: Any, show: Callable[[Any, Any, str], None]) -> None:
    """Run one ``xmd users`` action; ``show(args, payload, text)`` prints JSON or text."""
    from xmd.config import Settings
    from xmd.db.engine import make_engine, make_session_factory
    from xmd.db.migrate import check_migrated
    from xmd.users import service

    settings = Settings.from_env()
    engine = make_engine(settings.database_url, data_dir_path=settings.data_dir)
    check_migrated(engine)
    try:
        with make_session_factory(engine)() as db:
            if args.action == "list":
                rows = [{"id": u.id, "name": u.name, "role": u.role.value} for u in service.list_users(db_session=db)]
                show(args, rows, "\n".join(f"{r['id']:>4}  {r['name']:<20} {r['role']}" for r in rows))
                return
            if not args.name:
                raise UsageError("a user name is required")
            if args.expires_days is not None and args.expires_days < 1:
                raise UsageError("--expires-days must be at least 1")
            lifetime = timedelta(days=args.expires_days) if args.expires_days is not None else None
            if args.action == "create":
                user = service.create_user(db_session=db, name=args.name, role=args.role or "viewer")
            else:
                user = service.get_by_name(db_session=db, name=args.name)
                if user is None:
                    raise UsageError(f"no user named {args.name!r}")
            if args.action in ("create", "token"):
                token, secret = service.create_token(db_session=db, user=user, name="cli", expires_in=lifetime)
                until = f", expires {token.expires_at:%Y-%m-%d %H:%M} UTC" if token.expires_at else ""
                show(
                    args,
                    {
                        "id": user.id,
                        "name": user.name,
                        "role": user.role.value,
                        "token": secret,
                        "token_id": token.id,
                        "expires_at": token.expires_at,
                    },
                    f"user {user.name} ({user.role.value}); API token {token.id}{until} "
                    f"(shown once, store it now):\n{secret}",
                )
            elif args.action == "tokens":
                rows = [_token_row(t, service.is_active(t)) for t in service.list_tokens(db_session=db, user=user)]
                lines = [
                    f"{r['id']:>4}  {r['prefix']}…  {r['name']:<12} "
                    f"{'active' if r['active'] else 'revoked' if r['revoked_at'] else 'expired':<8} "
                    f"expires {r['expires_at'] or 'never'}"
                    for r in rows
                ]
                show(args, rows, "\n".join(lines) or f"{user.name} has no tokens")
            elif args.action == "revoke":
                if args.token_id is None:
                    raise UsageError("revoke needs --token-id (see `xmd users tokens NAME`)")
                token = service.revoke(db_session=db, token_id=args.token_id, user_id=user.id)
                show(args, {"id": token.id, "revoked_at": token.revoked_at}, f"token {token.id} of {user.name} revoked")
            elif args.action == "role":
                if args.role is None:
                    raise UsageError("role needs --role admin|annotator|viewer")
                service.set_role(db_session=db, user=user, role=args.role)
                show(
                    args,
                    {"id": user.id, "name": user.name, "role": user.role.value},
                    f"{user.name} is now {user.role.value}",
                )
            elif args.action == "delete":
                service.delete_user(db_session=db, user=user)
                show(args, {"deleted": args.name}, f"user {args.name} deleted (their feedback stays, without author)")
    finally:
        engine.dispose()
