// SPDX-License-Identifier: Apache-2.0
//
// The load for Benchmarks/container/goals.sh: COUNT transient units PREFIX-0.service … PREFIX-(COUNT-1).service, each
// running /bin/true, started straight over sd-bus with StartTransientUnit, WINDOW of them alive at once. A unit is done
// when PID 1 sends UnitRemoved for it (it ran and was garbage-collected). One connection for everything: systemd-run
// would open a bus connection per unit, and PID 1's cost of those would flatter every ratio to PID 1.
//
// After the last unit is done it keeps listening for LINGER seconds. A second UnitRemoved for a name means PID 1
// loaded the unit again after collecting it, because someone (a subscriber) asked about it: those are counted.
//
// Prints one line: runs=N seconds=S rate=R loaded_again=K names_loaded_again=L failed_calls=F
// Usage: churn PREFIX COUNT WINDOW LINGER
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <systemd/sd-bus.h>

#define SYSTEMD "org.freedesktop.systemd1"
#define MANAGER "org.freedesktop.systemd1.Manager"

static const char *prefix;
static size_t prefix_len;
static unsigned *removals;  // UnitRemoved signals seen per unit index
static long count, alive, done, loaded_again, names_again;

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

// UnitRemoved(s id, o path): the first one for our unit ends its run; any later one is a reload after collection.
static int on_removed(sd_bus_message *m, void *userdata, sd_bus_error *error) {
    (void)userdata, (void)error;
    const char *id;
    if (sd_bus_message_read(m, "s", &id) < 0 || strncmp(id, prefix, prefix_len) != 0 || id[prefix_len] != '-')
        return 0;
    char *end;
    long i = strtol(id + prefix_len + 1, &end, 10);
    if (strcmp(end, ".service") != 0 || i < 0 || i >= count) return 0;
    if (removals[i]++ == 0) {
        alive--, done++;
    } else {
        loaded_again++;
        if (removals[i] == 2) names_again++;
    }
    return 0;
}

static int fail(const char *what, int r) {
    fprintf(stderr, "churn: %s: %s\n", what, strerror(-r));
    return EXIT_FAILURE;
}

// Handles whatever has arrived, then waits at most TIMEOUT µs for more.
static int pump(sd_bus *bus, uint64_t timeout) {
    int r;
    while ((r = sd_bus_process(bus, NULL)) > 0) {}
    return r < 0 ? r : sd_bus_wait(bus, timeout);
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: churn PREFIX COUNT WINDOW LINGER\n");
        return 64;
    }
    prefix = argv[1];
    prefix_len = strlen(prefix);
    count = atol(argv[2]);
    long window = atol(argv[3]);
    double linger = atof(argv[4]);
    if (count <= 0 || window <= 0) {
        fprintf(stderr, "churn: COUNT and WINDOW must be positive\n");
        return 64;
    }
    removals = calloc((size_t)count, sizeof *removals);
    if (!removals) return fail("calloc", -ENOMEM);
    sd_bus *bus = NULL;
    sd_bus_error error = SD_BUS_ERROR_NULL;
    int r = sd_bus_open_system(&bus);
    if (r < 0) return fail("sd_bus_open_system", r);
    r = sd_bus_match_signal(bus, NULL, SYSTEMD, "/org/freedesktop/systemd1", MANAGER, "UnitRemoved", on_removed, NULL);
    if (r < 0) return fail("sd_bus_match_signal", r);
    // PID 1 sends UnitNew/UnitRemoved only while someone is subscribed: do not rely on the others being there.
    r = sd_bus_call_method(bus, SYSTEMD, "/org/freedesktop/systemd1", MANAGER, "Subscribe", &error, NULL, "");
    if (r < 0) return fail("Subscribe", r);

    long next = 0, failed = 0;
    double started = now(), finished = started;
    while (done + failed < count) {
        while (alive < window && next < count) {
            char name[256];
            snprintf(name, sizeof name, "%s-%ld.service", prefix, next++);
            // ssa(sv)a(sa(sv)): name, mode, properties ExecStart=/bin/true (path, argv, ignore failure) and
            // CollectMode (as systemd-run --collect sets it, so that a failed run is collected too), no auxiliary
            // units. The reply (a job path) is not needed; signals that arrive meanwhile are queued for pump().
            r = sd_bus_call_method(bus, SYSTEMD, "/org/freedesktop/systemd1", MANAGER, "StartTransientUnit", &error,
                                   NULL, "ssa(sv)a(sa(sv))", name, "fail", 2, "ExecStart", "a(sasb)", 1, "/bin/true",
                                   1, "/bin/true", 0, "CollectMode", "s", "inactive-or-failed", 0);
            if (r < 0) {
                fprintf(stderr, "churn: StartTransientUnit %s: %s\n", name,
                        error.message ? error.message : strerror(-r));
                sd_bus_error_free(&error);
                failed++;
            } else {
                alive++;
            }
        }
        r = pump(bus, 1000000);
        if (r < 0) return fail("sd-bus", r);
        finished = now();
    }
    // Late reloads: a subscriber that is behind may still ask about units that are long gone.
    for (double until = now() + linger; now() < until;) {
        r = pump(bus, (uint64_t)((until - now()) * 1e6) + 1);
        if (r < 0) return fail("sd-bus", r);
    }
    double seconds = finished - started;
    printf("runs=%ld seconds=%.2f rate=%.0f loaded_again=%ld names_loaded_again=%ld failed_calls=%ld\n", done, seconds,
           seconds > 0 ? (double)done / seconds : 0.0, loaded_again, names_again, failed);
    sd_bus_unref(bus);
    free(removals);
    return 0;
}
