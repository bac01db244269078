# Starts a throwaway PostgreSQL for tests and benchmarks: initdb and pg_ctl in a temporary
# folder, listening on a free loopback port with password login, run as the unprivileged
# `postgres` user when the script runs as root. Sourced by scripts/test and scripts/bench.
#   postgres_start   sets INTAKE_TEST_POSTGRES_URL (a database named intake) and POSTGRES_DIR
#   postgres_stop    stops the server and removes its folder
# Fails loudly, saying why, when PostgreSQL cannot be installed or started; never skips.

postgres_bin() {
    local dir
    if command -v pg_config >/dev/null && [ -x "$(pg_config --bindir)/initdb" ]; then pg_config --bindir; return; fi
    for dir in /usr/lib/postgresql/*/bin; do
        [ -x "$dir/initdb" ] && { echo "$dir"; return; }
    done
    return 1
}

postgres_start() {
    local bin
    if ! bin=$(postgres_bin); then
        if command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
            echo "postgres: installing postgresql"
            apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql >/dev/null \
                || { echo "postgres: cannot install postgresql with apt-get" >&2; return 1; }
            bin=$(postgres_bin) || { echo "postgres: postgresql installed but initdb is not found" >&2; return 1; }
        else
            echo "postgres: PostgreSQL is missing; install it (Debian/Ubuntu: sudo apt-get install postgresql)" >&2
            return 1
        fi
    fi
    POSTGRES_DIR=$(mktemp -d /tmp/intake-postgres.XXXXXX)
    chmod 755 "$POSTGRES_DIR"
    local run=()
    if [ "$(id -u)" = 0 ]; then
        id postgres >/dev/null 2>&1 || useradd --system --no-create-home postgres \
            || { echo "postgres: cannot create the postgres user to run PostgreSQL as" >&2; return 1; }
        chown postgres "$POSTGRES_DIR"
        run=(runuser -u postgres --)
    fi
    local password port
    # Tests need no fsync; the bench (POSTGRES_DURABLE=1) measures what a deployment runs: every commit on disk.
    local durability="-c fsync=off -c synchronous_commit=off"
    [ "${POSTGRES_DURABLE:-0}" = 1 ] && durability="-c fsync=on -c synchronous_commit=on"
    password=$(head -c 18 /dev/urandom | base64 | tr -dc 'A-Za-z0-9')
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    printf '%s\n' "$password" > "$POSTGRES_DIR/password"
    [ ${#run[@]} -eq 0 ] || chown postgres "$POSTGRES_DIR/password"
    "${run[@]}" "$bin/initdb" -D "$POSTGRES_DIR/data" -U intake --pwfile="$POSTGRES_DIR/password" \
        --auth-host=scram-sha-256 --auth-local=trust -E UTF8 --locale=C.UTF-8 >"$POSTGRES_DIR/initdb.log" 2>&1 \
        || { echo "postgres: initdb failed:" >&2; tail -20 "$POSTGRES_DIR/initdb.log" >&2; return 1; }
    "${run[@]}" "$bin/pg_ctl" -D "$POSTGRES_DIR/data" -l "$POSTGRES_DIR/server.log" -w -t 60 \
        -o "-c listen_addresses=127.0.0.1 -p $port -k $POSTGRES_DIR $durability -c max_connections=300" start \
        >/dev/null || { echo "postgres: the server did not start:" >&2; tail -20 "$POSTGRES_DIR/server.log" >&2; return 1; }
    "${run[@]}" "$bin/createdb" -h "$POSTGRES_DIR" -p "$port" -U intake intake \
        || { echo "postgres: cannot create the database" >&2; return 1; }
    export POSTGRES_BIN=$bin POSTGRES_PORT=$port
    export INTAKE_TEST_POSTGRES_URL="postgres://intake:$password@127.0.0.1:$port/intake?sslmode=disable"
    echo "postgres: PostgreSQL $("$bin/postgres" --version | awk '{print $3}') on 127.0.0.1:$port ($POSTGRES_DIR)"
}

postgres_stop() {
    [ -n "${POSTGRES_DIR:-}" ] && [ -d "$POSTGRES_DIR/data" ] || return 0
    local run=()
    [ "$(id -u)" = 0 ] && run=(runuser -u postgres --)
    "${run[@]}" "$POSTGRES_BIN/pg_ctl" -D "$POSTGRES_DIR/data" -m immediate stop >/dev/null 2>&1 || true
    rm -rf "$POSTGRES_DIR"
}
