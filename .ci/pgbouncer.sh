#!/usr/bin/env bash
# Starts or stops PgBouncer in transaction pooling mode in front of the throwaway PostgreSQL of .ci/postgres.sh:
# the shape of RDS Proxy (a client's transactions may each run on another server connection, and a server
# connection serves many clients one transaction after another).
#   bash .ci/pgbouncer.sh start   -> prints the DATABASE_URL of the pooler (run with DATABASE_PROXY=true)
#   bash .ci/pgbouncer.sh stop
# Every database of the server is reachable (`*`), each (database, user) pair with a pool of PGB_POOL_SIZE server
# connections (default 2: a platform's pool of 2 and a test's own client share them). The startup message is
# refused for any parameter PgBouncer does not track (statement_timeout, say), as RDS Proxy refuses it. Named
# prepared statements are not tracked by this PgBouncer (Debian's 1.18): a client that uses them fails.
# PgBouncer refuses to run as root: as root, it runs as the postgres user.
set -euo pipefail
PG_PORT=${PG_PORT:-55432}
PG_PASSWORD=${PG_PASSWORD:-ci-password}
PGB_PORT=${PGB_PORT:-56432}
PGB_DIR=${PGB_DIR:-/tmp/platform-ci-pgbouncer}
PGB_POOL_SIZE=${PGB_POOL_SIZE:-2}
PGB_BIN=${PGB_BIN:-/usr/sbin/pgbouncer}

as_postgres() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

case "${1:-}" in
  start)
    if [ ! -x "$PGB_BIN" ]; then
      echo "PgBouncer missing; installing pgbouncer" >&2
      apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq pgbouncer >&2
    fi
    rm -rf "$PGB_DIR"
    mkdir -p "$PGB_DIR"
    # The throwaway server's superuser, its password in clear in a file only PgBouncer reads: PgBouncer answers
    # the client's SCRAM exchange and then logs in to PostgreSQL with SCRAM itself.
    printf '"postgres" "%s"\n' "$PG_PASSWORD" > "$PGB_DIR/userlist.txt"
    cat > "$PGB_DIR/pgbouncer.ini" <<EOF
[databases]
* = host=127.0.0.1 port=$PG_PORT

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $PGB_PORT
unix_socket_dir =
auth_type = scram-sha-256
auth_file = $PGB_DIR/userlist.txt
admin_users = postgres
pool_mode = transaction
default_pool_size = $PGB_POOL_SIZE
min_pool_size = 0
reserve_pool_size = 0
max_client_conn = 1000
max_db_connections = 0
; A client waits this long for a server connection: a test that waits on itself fails instead of hanging.
query_wait_timeout = 60
server_reset_query =
logfile = $PGB_DIR/pgbouncer.log
pidfile = $PGB_DIR/pgbouncer.pid
EOF
    chmod 600 "$PGB_DIR/userlist.txt"
    [ "$(id -u)" = 0 ] && chown -R postgres:postgres "$PGB_DIR"
    as_postgres "$PGB_BIN" -d "$PGB_DIR/pgbouncer.ini" >/dev/null
    for _ in $(seq 1 50); do
      if (exec 3<>"/dev/tcp/127.0.0.1/$PGB_PORT") 2>/dev/null; then break; fi
      sleep 0.1
    done
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$PGB_PORT") 2>/dev/null; then
      cat "$PGB_DIR/pgbouncer.log" >&2 || true
      echo "PgBouncer did not start on 127.0.0.1:$PGB_PORT" >&2
      exit 1
    fi
    echo "postgres://postgres:$PG_PASSWORD@127.0.0.1:$PGB_PORT/postgres"
    ;;
  stop)
    if [ -f "$PGB_DIR/pgbouncer.pid" ]; then
      pid=$(cat "$PGB_DIR/pgbouncer.pid")
      kill "$pid" 2>/dev/null || true
      for _ in $(seq 1 50); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
      done
    fi
    rm -rf "$PGB_DIR"
    ;;
  *)
    echo "usage: $0 start|stop" >&2
    exit 2
    ;;
esac
