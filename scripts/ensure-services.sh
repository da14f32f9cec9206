#!/usr/bin/env bash
# Make sure the PostgreSQL and Redis servers the tests talk to are up on 127.0.0.1 (5432, 6379).
# `make test` and CI both call this, so a newcomer's `make test` passes as CI's does: a server that is
# installed but down is started; one that is missing is installed from Debian's packages first.
set -euo pipefail

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

apt_install() {
  command -v apt-get >/dev/null 2>&1 || { echo "install $* with your package manager" >&2; return 1; }
  as_root apt-get update -qq && as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@"
}

ensure_postgres() {
  if pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null; then return 0; fi
  if ! command -v pg_ctlcluster >/dev/null 2>&1 || [ ! -d /etc/postgresql ]; then
    echo "PostgreSQL is not installed; installing it" >&2
    apt_install postgresql
  fi
  echo "PostgreSQL is down; starting it" >&2
  as_root pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n1)" main start || true
  for _ in $(seq 1 30); do pg_isready -q -h 127.0.0.1 -p 5432 && break; sleep 1; done
  pg_isready -q -h 127.0.0.1 -p 5432 || { echo "PostgreSQL did not come up on 127.0.0.1:5432" >&2; return 1; }
  # The tests connect as the current user's role to the database `test` (trust auth on loopback, as on CI).
  if ! psql -h 127.0.0.1 -U postgres -d test -c 'select 1' >/dev/null 2>&1; then
    as_root su postgres -c "psql -c \"create database test\"" >/dev/null 2>&1 || true
  fi
}

ensure_redis() {
  if redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then return 0; fi
  command -v redis-server >/dev/null 2>&1 || { echo "Redis is not installed; installing it" >&2; apt_install redis-server; }
  echo "Redis is down; starting it" >&2
  as_root mkdir -p /var/lib/redis /var/log/redis
  as_root redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/ci.log || true
  for _ in $(seq 1 30); do redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1 && return 0; sleep 1; done
  echo "Redis did not come up on 127.0.0.1:6379" >&2
  return 1
}

ensure_postgres
ensure_redis
