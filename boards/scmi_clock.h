/*
 * scmi_clock.h - an SCMI agent's clock requests to the secure firmware
 * (Arm SCMI, clock management protocol 0x14) over the SMC transport: the
 * message goes in a shared-memory channel, an SMC with the channel's
 * function id makes the firmware answer in the same memory. The Rockchip
 * boards set the NPU clock this way (docs/hardware.md §2.2).
 */
#ifndef SCMI_CLOCK_H
#define SCMI_CLOCK_H

#include <stdint.h>

/* One channel: the shared memory (SCMI's shared-memory transport layout,
 * at least SCMI_SHMEM_BYTES) and the SMC function id that rings it. */
typedef struct {
    uintptr_t shmem;
    uint32_t smc_id;
} scmi_channel;

#define SCMI_SHMEM_BYTES 0x100u /* the Rockchip channels' size */

/* SCMI status codes (negative), returned as they come; the transport's own
 * failures are SCMI_COMMS_ERROR, logged with their cause. */
enum {
    SCMI_SUCCESS = 0,
    SCMI_NOT_SUPPORTED = -1,
    SCMI_INVALID_PARAMETERS = -2,
    SCMI_DENIED = -3,
    SCMI_NOT_FOUND = -4,
    SCMI_OUT_OF_RANGE = -5,
    SCMI_BUSY = -6,
    SCMI_COMMS_ERROR = -7,
    SCMI_GENERIC_ERROR = -8,
    SCMI_HARDWARE_ERROR = -9,
    SCMI_PROTOCOL_ERROR = -10,
};

/* The clock protocol's messages used here (the Arm SCMI specification's
 * clock management protocol; docs/hardware.md §2.5). */
#define SCMI_PROTOCOL_CLOCK   0x14u
#define SCMI_CLOCK_RATE_SET   0x5u
#define SCMI_CLOCK_RATE_GET   0x6u
#define SCMI_CLOCK_CONFIG_SET 0x7u

/* Name of an SCMI status ("DENIED"), "unknown" for others. */
const char *scmi_status_name(int status);

/* CLOCK_RATE_SET, synchronous, rounded down by the firmware. */
int scmi_clock_rate_set(const scmi_channel *ch, uint32_t clock_id, uint64_t hz);
/* CLOCK_RATE_GET: *hz on SCMI_SUCCESS. */
int scmi_clock_rate_get(const scmi_channel *ch, uint32_t clock_id, uint64_t *hz);
/* CLOCK_CONFIG_SET: the clock enabled (1) or gated (0). */
int scmi_clock_enable(const scmi_channel *ch, uint32_t clock_id, int on);

#endif
