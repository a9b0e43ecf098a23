/* SPDX-License-Identifier: Apache-2.0 */
#ifndef LIFECYCLED_CSYSTEMD_H
#define LIFECYCLED_CSYSTEMD_H

/* The public libsystemd API that LifecycleSystemd uses. Swift imports none of the C-variadic
 * functions declared here (sd_bus_message_read, sd_bus_message_append, sd_bus_call_method,
 * sd_journal_send, sd_notifyf, ...); the Swift layer uses their fixed-arity counterparts. */
#include <systemd/sd-bus.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-event.h>
#include <systemd/sd-id128.h>
#include <systemd/sd-journal.h>

/* The bus thread's poll loop, its eventfd wake-up, its signal handling and sd_journal_sendv's iovec. */
#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/uio.h>
#include <time.h>

#endif
