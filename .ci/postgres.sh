#!/usr/bin/env bash
# Starts or stops a throwaway PostgreSQL 15 on 127.0.0.1 for the test suite.
#   bash .ci/postgres.sh start   -> prints the DATABASE_URL to use
#   bash .ci/postgres.sh stop
# Data lives in a temporary directory owned by the postgres user (initdb refuses to run as root).
set -euo pipefail
PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
PG_PORT=${PG_PORT:-55432}
PG_DIR=${PG_DIR:-/tmp/platform-ci-pg}
PG_PASSWORD=${PG_PASSWORD:-ci-password}

as_postgres() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

case "${1:-}" in
  start)
    if [ ! -x "$PG_BIN/initdb" ]; then
      echo "PostgreSQL 15 server binaries missing; installing postgresql-15" >&2
      apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql-15 >&2
    fi
    rm -rf "$PG_DIR"
    mkdir -p "$PG_DIR"
    [ "$(id -u)" = 0 ] && chown postgres:postgres "$PG_DIR"
    pwfile=$(mktemp)
    echo "$PG_PASSWORD" > "$pwfile"
    chmod 644 "$pwfile"
    as_postgres "$PG_BIN/initdb" -D "$PG_DIR/data" -U postgres --pwfile="$pwfile" -A scram-sha-256 -E UTF8 >/dev/null
    rm -f "$pwfile"
    # The server's own time zone is UTC, as Aurora's default: the platform's roles have UTC as their default too
    # (shared/sql/session-defaults.ts), and a pooler that replays the first connection's TimeZone to every client
    # (PgBouncer) then replays the same.
    as_postgres "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/server.log" -w \
      -o "-c listen_addresses=127.0.0.1 -p $PG_PORT -k $PG_DIR -c max_connections=200 -c fsync=off -c timezone=UTC" start >/dev/null
    echo "postgres://postgres:$PG_PASSWORD@127.0.0.1:$PG_PORT/postgres"
    ;;
  stop)
    if [ -d "$PG_DIR/data" ]; then
      as_postgres "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m fast -w stop >/dev/null 2>&1 || true
    fi
    rm -rf "$PG_DIR"
    ;;
  *)
    echo "usage: $0 start|stop" >&2
    exit 2
    ;;
esac
