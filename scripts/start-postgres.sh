#!/usr/bin/env bash
# Start a throwaway PostgreSQL server on 127.0.0.1 for the integration tests (test/integration/).
#
#   eval "$(bash scripts/start-postgres.sh)"     # start it (or reuse a running one) and export the URL
#   npm test                                     # now also runs the PostgreSQL suite
#   bash scripts/start-postgres.sh --stop        # stop it and delete its data
#   bash scripts/start-postgres.sh --restart     # restart the running server (fast shutdown: open
#                                                # connections are cut), keeping its data
#
# It installs Debian's `postgresql` package when no PostgreSQL server binaries are on the machine
# (needs root and apt), creates a cluster in a temporary directory owned by the `postgres` user (the
# server refuses to run as root), starts it on 127.0.0.1 only, on a fixed non-default port so it never
# meets a system server on 5432, and creates the test database. Trust authentication: the cluster is
# for tests, reachable from this machine only, and deleted by --stop.
#
# stdout carries only the `export LANGCHAIN_COMPACTION_POSTGRES_URL=...` line (for eval); progress
# goes to stderr.
#
# Environment (all optional):
#   LANGCHAIN_COMPACTION_POSTGRES_PORT  port to listen on            (default 54329)
#   LANGCHAIN_COMPACTION_POSTGRES_DIR   where the cluster lives       (default /tmp/langchain-compaction-postgres-<port>)
set -euo pipefail

port="${LANGCHAIN_COMPACTION_POSTGRES_PORT:-54329}"
dir="${LANGCHAIN_COMPACTION_POSTGRES_DIR:-${TMPDIR:-/tmp}/langchain-compaction-postgres-${port}}"
data="$dir/data"
database="langchain_compaction"
url="postgresql://postgres@127.0.0.1:${port}/${database}"

log() { echo "start-postgres: $*" >&2; }

# The newest installed server's binaries (Debian keeps them out of PATH, under /usr/lib/postgresql/<major>/bin).
server_bin() {
  local candidate
  candidate="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)"
  if [[ -n "$candidate" && -x "$candidate/initdb" ]]; then
    echo "$candidate"
  elif command -v initdb > /dev/null 2>&1 && command -v pg_ctl > /dev/null 2>&1; then
    dirname "$(command -v initdb)"
  fi
}

# Run a server binary as the cluster's owner: `postgres` when we are root, else ourselves.
as_owner() {
  if [[ "$(id -u)" == 0 ]]; then
    # From /: the caller's directory (a root-only temporary clone, say) may be closed to postgres.
    (cd / && runuser -u postgres -- "$@")
  else
    "$@"
  fi
}

stop_server() {
  local bin
  bin="$(server_bin)"
  if [[ -n "$bin" && -f "$data/postmaster.pid" ]]; then
    log "stopping the server in $data"
    as_owner "$bin/pg_ctl" -D "$data" -m fast -w stop > /dev/null 2>&1 || true
  fi
  rm -rf "$dir"
}

if [[ "${1:-}" == "--stop" ]]; then
  stop_server
  exit 0
fi

if [[ "${1:-}" == "--restart" ]]; then
  # What a deployment sees when its database fails over or is restarted: every open connection is
  # terminated, the server comes back with the same data. The fault tests use it mid-run.
  bin="$(server_bin)"
  if [[ -z "$bin" || ! -f "$data/postmaster.pid" ]]; then
    log "no server running in $data to restart"
    exit 1
  fi
  log "restarting the server in $data"
  as_owner "$bin/pg_ctl" -D "$data" -m fast -w -t 60 restart > /dev/null || {
    cat "$dir/server.log" >&2
    exit 1
  }
  log "ready again: $url"
  echo "export LANGCHAIN_COMPACTION_POSTGRES_URL=$url"
  exit 0
fi

bin="$(server_bin)"
if [[ -z "$bin" ]]; then
  if [[ "$(id -u)" != 0 ]] || ! command -v apt-get > /dev/null 2>&1; then
    log "no PostgreSQL server on this machine; install one (Debian: apt-get install postgresql) and run this again"
    exit 1
  fi
  log "installing Debian's postgresql package (apt-get update && apt-get install postgresql)"
  apt_log="$(mktemp)"
  if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql; } > "$apt_log" 2>&1; then
    cat "$apt_log" >&2
    log "installing postgresql failed (output above)"
    exit 1
  fi
  rm -f "$apt_log"
  bin="$(server_bin)"
  if [[ -z "$bin" ]]; then
    log "the postgresql package installed no server binaries under /usr/lib/postgresql"
    exit 1
  fi
fi

# A server from an earlier run that still answers is reused.
if as_owner "$bin/pg_ctl" -D "$data" status > /dev/null 2>&1 && "$bin/pg_isready" -q -h 127.0.0.1 -p "$port"; then
  log "reusing the server already running on 127.0.0.1:$port ($data)"
else
  if "$bin/pg_isready" -q -h 127.0.0.1 -p "$port"; then
    log "port $port is taken by another server; set LANGCHAIN_COMPACTION_POSTGRES_PORT to a free port"
    exit 1
  fi
  # Anything left in the directory is from a dead run: start from nothing.
  stop_server
  mkdir -p "$dir"
  if [[ "$(id -u)" == 0 ]]; then
    # /tmp is sticky and world-writable: the postgres user needs its own directory.
    id postgres > /dev/null 2>&1 || useradd --system --home-dir "$dir" --shell /usr/sbin/nologin postgres
    chown postgres: "$dir"
    chmod 700 "$dir"
  fi
  log "creating a cluster in $data ($("$bin/postgres" --version))"
  as_owner "$bin/initdb" -D "$data" -U postgres -A trust -E UTF8 --locale=C --no-sync > "$dir/initdb.log" 2>&1 || {
    cat "$dir/initdb.log" >&2
    exit 1
  }
  # Loopback only; the socket lives in the cluster's directory (no /var/run/postgresql needed);
  # durability is not wanted for throwaway test data.
  log "starting the server on 127.0.0.1:$port"
  as_owner "$bin/pg_ctl" -D "$data" -l "$dir/server.log" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" \
    start > /dev/null || {
    cat "$dir/server.log" >&2
    exit 1
  }
fi

if ! "$bin/psql" -h 127.0.0.1 -p "$port" -U postgres -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = '$database'" | grep -q 1; then
  "$bin/createdb" -h 127.0.0.1 -p "$port" -U postgres "$database"
fi
log "ready: $url (stop with: bash scripts/start-postgres.sh --stop)"
echo "export LANGCHAIN_COMPACTION_POSTGRES_URL=$url"
