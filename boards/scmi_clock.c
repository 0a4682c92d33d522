/*
 * scmi_clock.c - SCMI clock requests over the SMC transport (scmi_clock.h).
 *
 * The channel's shared memory (SCMI's shared-memory transport; Linux
 * drivers/firmware/arm_scmi/shmem.c reads the same layout):
 *   0x04 channel status: bit 0 free (the agent may write), bit 1 error
 *   0x10 flags: bit 0 completion interrupt (0 here: the SMC returns done)
 *   0x14 length: bytes of header and payload
 *   0x18 message header, 0x1C payload (a reply's first word is its status)
 * Every access is a 32-bit MMIO access: the firmware maps the channel as
 * device memory, and so must the board.
 */
#include "scmi_clock.h"

#include "hal.h"

#define SHMEM_STATUS  0x04u
#define SHMEM_FLAGS   0x10u
#define SHMEM_LENGTH  0x14u
#define SHMEM_HEADER  0x18u
#define SHMEM_PAYLOAD 0x1Cu

#define STATUS_FREE  (1u << 0)
#define STATUS_ERROR (1u << 1)

/* Header: message id 7:0, type 9:8 (0 = command), protocol 17:10, token 27:18. */
#define HEADER(protocol, msg, token)                                                               \
    ((uint32_t)(msg) | (uint32_t)(protocol) << 10 | ((uint32_t)(token)&0x3FFu) << 18)

#define MAX_WORDS ((SCMI_SHMEM_BYTES - SHMEM_PAYLOAD) / 4u)

static const char *const status_names[] = {
    "SUCCESS",        "NOT_SUPPORTED", "INVALID_PARAMETERS", "DENIED",        "NOT_FOUND",
    "OUT_OF_RANGE",   "BUSY",          "COMMS_ERROR",        "GENERIC_ERROR", "HARDWARE_ERROR",
    "PROTOCOL_ERROR",
};

const char *scmi_status_name(int status)
{
    if (status > 0 || -status >= (int)(sizeof status_names / sizeof status_names[0]))
        return "unknown";
    return status_names[-status];
}

static uint32_t next_token;

static int comms_error(const scmi_channel *ch, uint32_t msg, const char *why)
{
    HAL_LOG_ERR("scmi: channel 0x%lx (SMC 0x%08lx), clock message %lu: %s",
                (unsigned long)ch->shmem, (unsigned long)ch->smc_id, (unsigned long)msg, why);
    return SCMI_COMMS_ERROR;
}

/* One clock-protocol command of n_in payload words; on success the reply's
 * words after its status are in out[0..n_out). Returns the reply's status
 * or SCMI_COMMS_ERROR. */
static int call(const scmi_channel *ch, uint32_t msg, const uint32_t *in, uint32_t n_in,
                uint32_t *out, uint32_t n_out)
{
    uint32_t header = HEADER(SCMI_PROTOCOL_CLOCK, msg, next_token++), status, length;
    uintptr_t ret;
    int reply;

    status = hal_mmio_read32(ch->shmem + SHMEM_STATUS);
    if (!(status & STATUS_FREE))
        return comms_error(ch, msg, "the channel is not free (the firmware still owns it)");
    for (uint32_t i = 0; i < n_in; i++)
        hal_mmio_write32(ch->shmem + SHMEM_PAYLOAD + 4u * i, in[i]);
    hal_mmio_write32(ch->shmem + SHMEM_HEADER, header);
    hal_mmio_write32(ch->shmem + SHMEM_LENGTH, 4u + 4u * n_in);
    hal_mmio_write32(ch->shmem + SHMEM_FLAGS, 0);
    hal_mmio_write32(ch->shmem + SHMEM_STATUS, 0); /* the firmware's turn */
    hal_wmb();
    ret = hal_smc(ch->smc_id, 0, 0, 0);
    hal_rmb();
    if (ret == HAL_SMC_NOT_SUPPORTED)
        return comms_error(ch, msg, "the secure firmware does not know the SMC function id");
    status = hal_mmio_read32(ch->shmem + SHMEM_STATUS);
    if (!(status & STATUS_FREE))
        return comms_error(ch, msg, "the firmware returned without freeing the channel");
    if (status & STATUS_ERROR)
        return comms_error(ch, msg, "the firmware flagged a channel error");
    if (hal_mmio_read32(ch->shmem + SHMEM_HEADER) != header)
        return comms_error(ch, msg, "the reply's header is not the command's");
    length = hal_mmio_read32(ch->shmem + SHMEM_LENGTH);
    if (length < 8u || length > 4u + 4u * MAX_WORDS)
        return comms_error(ch, msg, "the reply's length is outside header + status .. channel");
    reply = (int)hal_mmio_read32(ch->shmem + SHMEM_PAYLOAD);
    if (reply != SCMI_SUCCESS)
        return reply;
    if (length < 8u + 4u * n_out)
        return comms_error(ch, msg, "the reply is shorter than the message's answer");
    for (uint32_t i = 0; i < n_out; i++)
        out[i] = hal_mmio_read32(ch->shmem + SHMEM_PAYLOAD + 4u + 4u * i);
    return SCMI_SUCCESS;
}

int scmi_clock_rate_set(const scmi_channel *ch, uint32_t clock_id, uint64_t hz)
{
    /* flags 0: synchronous, rounded down; the rate as two 32-bit halves */
    const uint32_t in[4] = {0, clock_id, (uint32_t)hz, (uint32_t)(hz >> 32)};

    return call(ch, SCMI_CLOCK_RATE_SET, in, 4, NULL, 0);
}

int scmi_clock_rate_get(const scmi_channel *ch, uint32_t clock_id, uint64_t *hz)
{
    uint32_t out[2];
    int ret = call(ch, SCMI_CLOCK_RATE_GET, &clock_id, 1, out, 2);

    if (ret == SCMI_SUCCESS)
        *hz = (uint64_t)out[1] << 32 | out[0];
    return ret;
}

int scmi_clock_enable(const scmi_channel *ch, uint32_t clock_id, int on)
{
    const uint32_t in[2] = {clock_id, on ? 1u : 0u}; /* attributes bit 0: enabled */

    return call(ch, SCMI_CLOCK_CONFIG_SET, in, 2, NULL, 0);
}
