// SPDX-License-Identifier: Apache-2.0
//
// The floor for Benchmarks/container/goals.sh: the least a subscriber to systemd's unit events can cost. It installs
// the same match rules lifecycled installs (SystemdNames.matchRules), calls Subscribe() and then only receives: no
// property reads, no state, no journal. Whatever lifecycled costs beyond this is its own work, not the bus's.
// Usage: floor        (runs until SIGTERM)
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>

#define SYSTEMD "org.freedesktop.systemd1"
#define MANAGER "org.freedesktop.systemd1.Manager"

static const char *const rules[] = {
    "type='signal',sender='" SYSTEMD "',path_namespace='/org/freedesktop/systemd1/unit',"
    "interface='org.freedesktop.DBus.Properties',member='PropertiesChanged'",
    "type='signal',sender='" SYSTEMD "',path='/org/freedesktop/systemd1',interface='" MANAGER "',member='UnitRemoved'",
    "type='signal',sender='" SYSTEMD "',path='/org/freedesktop/systemd1',interface='" MANAGER "',member='JobRemoved'",
    "type='signal',sender='" SYSTEMD "',path='/org/freedesktop/systemd1',interface='" MANAGER "',member='Reloading'",
    "type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',interface='org.freedesktop.DBus',"
    "member='NameOwnerChanged',arg0='" SYSTEMD "'",
};

// A callback that does nothing: sd-bus has already read and parsed the message, which is the floor's whole cost.
static int ignore(sd_bus_message *m, void *userdata, sd_bus_error *error) {
    (void)m, (void)userdata, (void)error;
    return 0;
}

static int fail(const char *what, int r) {
    fprintf(stderr, "floor: %s: %s\n", what, strerror(-r));
    return EXIT_FAILURE;
}

int main(void) {
    sd_bus *bus = NULL;
    sd_bus_error error = SD_BUS_ERROR_NULL;
    int r = sd_bus_open_system(&bus);
    if (r < 0) return fail("sd_bus_open_system", r);
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
        r = sd_bus_add_match(bus, NULL, rules[i], ignore, NULL);
        if (r < 0) return fail("sd_bus_add_match", r);
    }
    r = sd_bus_call_method(bus, SYSTEMD, "/org/freedesktop/systemd1", MANAGER, "Subscribe", &error, NULL, "");
    if (r < 0) return fail(error.message ? error.message : "Subscribe", r);
    for (;;) {
        r = sd_bus_process(bus, NULL);
        if (r < 0) return fail("sd_bus_process", r);
        if (r > 0) continue;  // more may be queued: drain before sleeping
        r = sd_bus_wait(bus, UINT64_MAX);
        if (r < 0) return fail("sd_bus_wait", r);
    }
}
