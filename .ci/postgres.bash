# Sourced by .ci/run: a throwaway PostgreSQL cluster on loopback for the gang-learning tests
# (tests/test_learned_store.py). It belongs to this CI run: its own data directory, socket
# directory and port, trust authentication (loopback only), removed when the run ends.
#
# start_test_postgres exports PONDEROSA_TEST_POSTGRES=postgresql://ponderosa@127.0.0.1:PORT/ponderosa_test,
# or, when PostgreSQL cannot be installed or started, PONDEROSA_TEST_POSTGRES_UNAVAILABLE with the
# reason, which the PostgreSQL tests print when they skip. It never fails the CI run itself.

TEST_POSTGRES_DIR=""
TEST_POSTGRES_BIN=""

# initdb refuses to run as root: then the cluster is the postgres user's.
as_postgres_owner() {
    if [ "$(id -u)" = 0 ]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

postgres_unavailable() {
    echo "PostgreSQL tests will skip: $1" >&2
    export PONDEROSA_TEST_POSTGRES_UNAVAILABLE="$1"
    unset PONDEROSA_TEST_POSTGRES
    return 0
}

find_postgres_bin() {
    # the newest installed server version
    TEST_POSTGRES_BIN="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)"
    [ -n "$TEST_POSTGRES_BIN" ] && [ -x "$TEST_POSTGRES_BIN/initdb" ]
}

start_test_postgres() {
    if ! find_postgres_bin; then
        if command -v apt-get >/dev/null 2>&1; then
            { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
                postgresql; } >&2 || { postgres_unavailable "apt-get could not install the postgresql package"; return 0; }
        fi
        find_postgres_bin || { postgres_unavailable "no PostgreSQL server (/usr/lib/postgresql/*/bin/initdb)"; return 0; }
    fi
    if [ "$(id -u)" = 0 ] && ! id postgres >/dev/null 2>&1; then
        postgres_unavailable "running as root and there is no postgres user to own the cluster"
        return 0
    fi
    TEST_POSTGRES_DIR="$(mktemp -d /tmp/ponderosa-ci-postgres.XXXXXX)"
    [ "$(id -u)" = 0 ] && chown postgres: "$TEST_POSTGRES_DIR"
    local port
    # a port free right now on loopback; the kernel picks it
    port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
    if ! as_postgres_owner "$TEST_POSTGRES_BIN/initdb" -D "$TEST_POSTGRES_DIR/data" -U ponderosa -A trust \
            -E UTF8 --no-sync >"$TEST_POSTGRES_DIR/initdb.log" 2>&1; then
        postgres_unavailable "initdb failed: $(tail -n 3 "$TEST_POSTGRES_DIR/initdb.log" | tr '\n' ' ')"
        return 0
    fi
    # fsync off: a throwaway cluster need not survive a power cut, and the tests run faster
    if ! as_postgres_owner "$TEST_POSTGRES_BIN/pg_ctl" -D "$TEST_POSTGRES_DIR/data" -l "$TEST_POSTGRES_DIR/server.log" \
            -w -t 60 -o "-k $TEST_POSTGRES_DIR -c listen_addresses=127.0.0.1 -p $port -c fsync=off" \
            start >/dev/null 2>&1; then
        postgres_unavailable "the server did not start: $(tail -n 3 "$TEST_POSTGRES_DIR/server.log" | tr '\n' ' ')"
        return 0
    fi
    if ! as_postgres_owner "$TEST_POSTGRES_BIN/createdb" -h 127.0.0.1 -p "$port" -U ponderosa ponderosa_test >&2; then
        postgres_unavailable "createdb ponderosa_test failed"
        return 0
    fi
    export PONDEROSA_TEST_POSTGRES="postgresql://ponderosa@127.0.0.1:$port/ponderosa_test"
    unset PONDEROSA_TEST_POSTGRES_UNAVAILABLE
    echo "PostgreSQL for the tests: $PONDEROSA_TEST_POSTGRES" >&2
}

stop_test_postgres() {
    if [ -n "$TEST_POSTGRES_DIR" ] && [ -d "$TEST_POSTGRES_DIR" ]; then
        if [ -f "$TEST_POSTGRES_DIR/data/postmaster.pid" ]; then
            as_postgres_owner "$TEST_POSTGRES_BIN/pg_ctl" -D "$TEST_POSTGRES_DIR/data" -m immediate -w stop \
                >/dev/null 2>&1 || true
        fi
        rm -rf "$TEST_POSTGRES_DIR"
    fi
    TEST_POSTGRES_DIR=""
}
