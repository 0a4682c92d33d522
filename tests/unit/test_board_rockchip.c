/*
 * test_board_rockchip - the Rockchip boards' NPU bring-up without silicon:
 * the SCMI client against an SCMI agent written here from the SCMI
 * specification (shared-memory layout, headers, clock messages, status
 * codes), the I2C master and the regulators against a model of Rockchip's
 * I2C controller with the RK8602 and RK809 register maps behind it, the PMU
 * and CRU as register models, and the order of the whole bring-up checked
 * on a trace of what reached each device. On the host the SMC and every
 * register access call the models directly; under QEMU the SMC is an
 * undefined instruction and the register windows are unmapped, so both
 * trap and the HAL forwards them (hal_smc_emulate, hal_mmio_register).
 *
 * Facts typed in from the sources docs/hardware.md §2.2 and §2.5 cite
 * (Linux device trees and drivers, TF-A), not taken from the code.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "board_rockchip.h"
#include "hal.h"
#include "i2c_rk3x.h"
#include "npu_regulator.h"
#include "rknn_api.h"
#include "scmi_clock.h"
#include "test_util.h"

/* ---- log capture -------------------------------------------------------------- */

static char last_error[256];
static unsigned errors;

void rknpu_hook_log(rknpu_log_level level, const char *msg)
{
    if (level == RKNPU_LOG_ERROR) {
        errors++;
        snprintf(last_error, sizeof last_error, "%s", msg);
    }
}

static int logged(const char *text)
{
    return strstr(last_error, text) != NULL;
}

/* ---- the trace: what reached each device, in order ---------------------------- */

enum ev_kind {
    EV_VOLTAGE, /* a regulator's output changed: a = microvolts (0 = off) */
    EV_DOMAIN,  /* a power domain came up: a = its PWR_CON bit */
    EV_RATE,    /* the SCMI agent changed the NPU clock: a = Hz / 1000 */
    EV_NPU,     /* an NPU register was touched */
    EV_PINMUX,  /* an IOC register was written: a = offset, b = value */
    EV_GATES,   /* a CRU clock-gate register was written: a = offset, b = value */
};

typedef struct {
    enum ev_kind kind;
    uint32_t a, b;
} event;

static event trace[256];
static unsigned n_trace;

static void record(enum ev_kind kind, uint32_t a, uint32_t b)
{
    if (n_trace < sizeof trace / sizeof trace[0])
        trace[n_trace++] = (event){kind, a, b};
}

/* Index of the first (or last) event of a kind, -1 if none. */
static int first_of(enum ev_kind k)
{
    for (unsigned i = 0; i < n_trace; i++)
        if (trace[i].kind == k)
            return (int)i;
    return -1;
}

static int last_of(enum ev_kind k)
{
    for (unsigned i = n_trace; i-- > 0;)
        if (trace[i].kind == k)
            return (int)i;
    return -1;
}

static unsigned count_of(enum ev_kind k)
{
    unsigned n = 0;

    for (unsigned i = 0; i < n_trace; i++)
        n += trace[i].kind == k;
    return n;
}

/* ---- I2C devices: byte register files ------------------------------------------ */

typedef struct i2c_device {
    uint8_t addr;
    int present;
    uint8_t regs[256];
    int ignore_writes; /* a chip that takes no writes (read-back check) */
    void (*after_write)(struct i2c_device *d, uint8_t reg, uint8_t value);
    uint32_t writes;
} i2c_device;

/* RK8602 (fan53555.c): ID1 0x03 low nibble 10; run voltage 0x06,
 * 0.5 V + n x 6.25 mV; enable 0x00 bit 7. */
static uint32_t rk8602_output(const i2c_device *d)
{
    return (d->regs[0x00] & 0x80) ? 500000u + 6250u * d->regs[0x06] : 0;
}

static void rk8602_written(i2c_device *d, uint8_t reg, uint8_t value)
{
    (void)reg;
    (void)value;
    record(EV_VOLTAGE, rk8602_output(d), 0x42);
}

/* RK809 (rk808-regulator.c, RK817 layout): ID 0xED/0xEE; DCDC4 voltage 0xC4
 * bits 6:0, 0.5 V + n x 12.5 mV (n <= 80); enables 0xB1 bits 3:0, each
 * written only with its mask bit 4 + i. */
static uint32_t rk809_output(const i2c_device *d)
{
    uint32_t n = d->regs[0xC4] & 0x7Fu;

    return (d->regs[0xB1] & 0x08) ? 500000u + 12500u * n : 0;
}

static void rk809_written(i2c_device *d, uint8_t reg, uint8_t value)
{
    (void)reg;
    (void)value;
    record(EV_VOLTAGE, rk809_output(d), 0x20);
}

static i2c_device devices[2];
static unsigned n_devices;

static i2c_device *device_at(uint8_t addr)
{
    for (unsigned i = 0; i < n_devices; i++)
        if (devices[i].present && devices[i].addr == addr)
            return &devices[i];
    return NULL;
}

static void device_write(i2c_device *d, uint8_t reg, uint8_t value)
{
    d->writes++;
    if (d->ignore_writes)
        return;
    if (d->after_write == rk809_written && reg == 0xB1) {
        /* an enable bit changes only where its mask bit (4 + i) is set */
        uint8_t mask = value >> 4;
        value = (uint8_t)((d->regs[0xB1] & ~mask & 0x0Fu) | (value & mask & 0x0Fu));
    }
    d->regs[reg] = value;
    if (d->after_write)
        d->after_write(d, reg, value);
}

/* ---- Rockchip I2C controller model (the RK3399-style controller) -------------- */

typedef struct {
    uint32_t con, clkdiv, mrxaddr, mrxraddr, ipd, ien;
    uint32_t txdata[8], rxdata[8];
    int started;
    int dead; /* never raises an interrupt bit: the master must time out */
    unsigned transfers;
} i2c_ctrl;

static i2c_ctrl ctrl;

#define MODE(con) (((con) >> 1) & 3u)

static uint8_t tx_byte(unsigned i)
{
    return (uint8_t)(ctrl.txdata[i / 4] >> (8 * (i % 4)));
}

static void i2c_send(uint32_t count)
{
    i2c_device *d;

    if (!ctrl.started || MODE(ctrl.con) != 0 || count < 1 || count > 32)
        return;
    ctrl.transfers++;
    d = device_at(tx_byte(0) >> 1);
    if ((tx_byte(0) & 1u) || !d) {
        ctrl.ipd |= 1u << 6; /* NAK on the address */
        return;
    }
    for (unsigned i = 2; i < count; i++) /* register, then data with auto-increment */
        device_write(d, (uint8_t)(tx_byte(1) + i - 2), tx_byte(i));
    ctrl.ipd |= 1u << 2; /* MBTF */
}

static void i2c_receive(uint32_t count)
{
    i2c_device *d;

    /* register-TX: MRXADDR (bit 0 is the controller's), MRXRADDR, restart, read */
    if (!ctrl.started || MODE(ctrl.con) != 1 || !(ctrl.mrxaddr & (1u << 24)) ||
        !(ctrl.mrxraddr & (1u << 24)) || count < 1 || count > 32)
        return;
    ctrl.transfers++;
    d = device_at((uint8_t)((ctrl.mrxaddr & 0xFEu) >> 1));
    if (!d) {
        ctrl.ipd |= 1u << 6;
        return;
    }
    memset(ctrl.rxdata, 0, sizeof ctrl.rxdata);
    for (unsigned i = 0; i < count; i++)
        ctrl.rxdata[i / 4] |= (uint32_t)d->regs[(uint8_t)(ctrl.mrxraddr + i)] << (8 * (i % 4));
    ctrl.ipd |= 1u << 3; /* MBRF */
}

static uint32_t i2c_read(void *ctx, uintptr_t off)
{
    (void)ctx;
    if (off >= 0x200 && off < 0x220)
        return ctrl.rxdata[(off - 0x200) / 4];
    switch (off) {
    case 0x00: return ctrl.con;
    case 0x04: return ctrl.clkdiv;
    case 0x1C: return ctrl.dead ? 0 : ctrl.ipd;
    default: return 0;
    }
}

static void i2c_write(void *ctx, uintptr_t off, uint32_t v)
{
    (void)ctx;
    if (off >= 0x100 && off < 0x120) {
        ctrl.txdata[(off - 0x100) / 4] = v;
        return;
    }
    switch (off) {
    case 0x00:
        if ((v & 1u) && (v & (1u << 3))) { /* enable + start */
            ctrl.started = 1;
            ctrl.ipd |= 1u << 4;
        }
        if ((v & 1u) && (v & (1u << 4)) && ctrl.started) { /* stop */
            ctrl.started = 0;
            ctrl.ipd |= 1u << 5;
        }
        ctrl.con = v;
        break;
    case 0x04: ctrl.clkdiv = v; break;
    case 0x08: ctrl.mrxaddr = v; break;
    case 0x0C: ctrl.mrxraddr = v; break;
    case 0x10: i2c_send(v); break;
    case 0x14: i2c_receive(v); break;
    case 0x18: ctrl.ien = v; break;
    case 0x1C: ctrl.ipd &= ~v; break; /* write 1 to clear */
    default: break;
    }
}

/* ---- PMU and CRU models ------------------------------------------------------------ */

/* RK3588 PMU1 (Linux pm-domains.c rk3588 table, hardware.md §2.2): per NPU
 * domain its PWR_CON bit, repair bit, idle bit (-1: none). */
static const int rk3588_domains[4][3] = {{1, -1, -1}, {3, 2, 1}, {4, 3, 2}, {5, 4, 3}};

typedef struct {
    uint32_t pwr_con;  /* 1 = off */
    uint32_t idle_req; /* 1 = idle requested */
    int never_repairs; /* a domain whose memory repair never ends */
} pmu_model;

static pmu_model pmu;

static uint32_t hiword(uint32_t old, uint32_t v)
{
    uint32_t mask = v >> 16;

    return (old & ~mask) | (v & mask);
}

static int rk3588_all_on(void)
{
    for (unsigned i = 0; i < 4; i++)
        if ((pmu.pwr_con >> rk3588_domains[i][0]) & 1u)
            return 0;
    return 1;
}

static uint32_t pmu3588_read(void *ctx, uintptr_t off)
{
    uint32_t v = 0;

    (void)ctx;
    if (off == 0x290 && !pmu.never_repairs) /* repair done for every powered domain */
        for (unsigned i = 0; i < 4; i++)
            if (rk3588_domains[i][1] >= 0 && !((pmu.pwr_con >> rk3588_domains[i][0]) & 1u))
                v |= 1u << rk3588_domains[i][1];
    if (off == 0x118 || off == 0x120) /* ack and status follow the request */
        v = pmu.idle_req;
    if (off == 0x14C)
        v = pmu.pwr_con;
    return v;
}

static void pmu3588_write(void *ctx, uintptr_t off, uint32_t v)
{
    (void)ctx;
    if (off == 0x14C) {
        uint32_t old = pmu.pwr_con;
        pmu.pwr_con = hiword(old, v);
        for (unsigned i = 0; i < 4; i++) {
            uint32_t bit = 1u << rk3588_domains[i][0];
            if ((old & bit) && !(pmu.pwr_con & bit))
                record(EV_DOMAIN, (uint32_t)rk3588_domains[i][0], 0);
        }
    } else if (off == 0x10C) {
        pmu.idle_req = hiword(pmu.idle_req, v);
    }
}

/* RK3568 PMU: PWR_CON 0xA0 / PWR_STATUS 0x98 bit 1; idle req 0x50, ack 0x60,
 * status 0x68 bit 2. */
static uint32_t pmu3568_read(void *ctx, uintptr_t off)
{
    (void)ctx;
    if (off == 0x98)
        return pmu.pwr_con;
    if (off == 0x60 || off == 0x68)
        return pmu.idle_req;
    return 0;
}

static void pmu3568_write(void *ctx, uintptr_t off, uint32_t v)
{
    (void)ctx;
    if (off == 0xA0) {
        uint32_t old = pmu.pwr_con;
        pmu.pwr_con = hiword(old, v);
        if ((old & 2u) && !(pmu.pwr_con & 2u))
            record(EV_DOMAIN, 1, 0);
    } else if (off == 0x50) {
        pmu.idle_req = hiword(pmu.idle_req, v);
    }
}

static uint32_t recorder_read(void *ctx, uintptr_t off)
{
    (void)off;
    if ((uintptr_t)ctx == EV_NPU)
        record(EV_NPU, (uint32_t)off, 0);
    return 0;
}

static void recorder_write(void *ctx, uintptr_t off, uint32_t v)
{
    record((enum ev_kind)(uintptr_t)ctx, (uint32_t)off, v);
}

/* ---- the SCMI agent (SCMI specification: shared-memory transport, clock
 * protocol 0x14) ------------------------------------------------------------------ */

#define TEST_SHMEM  0xFE800000u /* unmapped on QEMU's virt board and unused here */
#define TEST_SMC_ID 0x82000010u

typedef struct {
    uint32_t words[0x100 / 4];
    uint32_t clock_id;
    uint64_t hz;    /* the NPU clock's rate */
    int answer;     /* SCMI status for every command, 0 = process */
    int leave_busy; /* returns without freeing the channel */
    int flag_error;
    int wrong_header;
    uint32_t reply_length; /* 0: the right one */
    uint64_t runs_at;      /* non-zero: the rate CLOCK_RATE_GET reports after a set */
    unsigned commands;
    uint32_t last_header;
    int changed_with_domains_off;
    int (*domains_on)(void);
} scmi_agent;

static scmi_agent agent;

static uint32_t shmem_read(void *ctx, uintptr_t off)
{
    (void)ctx;
    return agent.words[off / 4];
}

static void shmem_write(void *ctx, uintptr_t off, uint32_t v)
{
    (void)ctx;
    agent.words[off / 4] = v;
}

/* TF-A's NPU clock takes only its table's rates (200..1000 MHz, 100 MHz
 * apart; plat/rockchip/rk3588/drivers/scmi/rk3588_clk.c). */
static int rate_in_table(uint64_t hz)
{
    return hz >= 200000000u && hz <= 1000000000u && hz % 100000000u == 0;
}

/* One command in the channel, as the platform side of the specification
 * handles it; returns the reply's status, out[] its further words. */
static int agent_command(uint32_t header, const uint32_t *in, uint32_t in_bytes, uint32_t *out,
                         uint32_t *n_out)
{
    uint32_t msg = header & 0xFFu, type = (header >> 8) & 3u, protocol = (header >> 10) & 0xFFu;

    *n_out = 0;
    if (type != 0 || protocol != 0x14)
        return SCMI_NOT_SUPPORTED;
    if (agent.answer)
        return agent.answer;
    switch (msg) {
    case 0x5: /* CLOCK_RATE_SET: flags, id, rate low, rate high */
        if (in_bytes != 16)
            return SCMI_PROTOCOL_ERROR;
        if (in[1] != agent.clock_id)
            return SCMI_NOT_FOUND;
        if (!rate_in_table((uint64_t)in[3] << 32 | in[2]))
            return SCMI_INVALID_PARAMETERS;
        if (agent.domains_on && !agent.domains_on())
            agent.changed_with_domains_off = 1;
        agent.hz = agent.runs_at ? agent.runs_at : (uint64_t)in[3] << 32 | in[2];
        record(EV_RATE, (uint32_t)(agent.hz / 1000u), 0);
        return SCMI_SUCCESS;
    case 0x6: /* CLOCK_RATE_GET: id -> rate low, rate high */
        if (in_bytes != 4)
            return SCMI_PROTOCOL_ERROR;
        if (in[0] != agent.clock_id)
            return SCMI_NOT_FOUND;
        out[0] = (uint32_t)agent.hz;
        out[1] = (uint32_t)(agent.hz >> 32);
        *n_out = 2;
        return SCMI_SUCCESS;
    case 0x7: /* CLOCK_CONFIG_SET: id, attributes */
        return in_bytes >= 8 && in[0] == agent.clock_id ? SCMI_SUCCESS : SCMI_NOT_FOUND;
    default: return SCMI_NOT_SUPPORTED;
    }
}

static uintptr_t agent_smc(uint32_t fid, uintptr_t a1, uintptr_t a2, uintptr_t a3)
{
    uint32_t *w = agent.words, out[4], n_out, length;
    int status;

    (void)a1;
    (void)a2;
    (void)a3;
    if (fid != TEST_SMC_ID)
        return HAL_SMC_NOT_SUPPORTED;
    agent.commands++;
    /* status 0x04 must be busy (the agent cleared "free"), length 0x14
     * counts header + payload, header 0x18, payload 0x1C */
    length = w[0x14 / 4];
    agent.last_header = w[0x18 / 4];
    if ((w[0x04 / 4] & 1u) || length < 4 || length > 0x100 - 0x18) {
        w[0x04 / 4] = 3u; /* free + error */
        return 0;
    }
    status = agent_command(w[0x18 / 4], &w[0x1C / 4], length - 4, out, &n_out);
    w[0x1C / 4] = (uint32_t)status;
    for (uint32_t i = 0; i < n_out; i++)
        w[0x20 / 4 + i] = out[i];
    w[0x14 / 4] = agent.reply_length ? agent.reply_length : 8u + 4u * n_out;
    if (agent.wrong_header)
        w[0x18 / 4] ^= 1u << 18;
    w[0x04 / 4] = agent.leave_busy ? 0u : (agent.flag_error ? 3u : 1u);
    return 0;
}

/* ---- set-up of one scenario ----------------------------------------------------- */

static hal_mmio_region regions[8];
static unsigned n_regions;

static void map(uintptr_t base, uintptr_t size, void *ctx, uint32_t (*rd)(void *, uintptr_t),
                void (*wr)(void *, uintptr_t, uint32_t))
{
    regions[n_regions] = (hal_mmio_region){base, size, ctx, rd, wr};
    if (!CHECK(hal_mmio_register(&regions[n_regions]) == 0))
        return;
    n_regions++;
}

static void unmap_all(void)
{
    while (n_regions)
        hal_mmio_unregister(&regions[--n_regions]);
}

static void fresh(uint32_t clock_id)
{
    unmap_all();
    memset(&ctrl, 0, sizeof ctrl);
    memset(&agent, 0, sizeof agent);
    memset(devices, 0, sizeof devices);
    n_devices = 0;
    n_trace = 0;
    errors = 0;
    last_error[0] = 0;
    agent.words[1] = 1u; /* channel free */
    agent.clock_id = clock_id;
    agent.hz = 200000000u; /* both SoCs' boot rate */
    hal_smc_emulate(agent_smc);
    map(TEST_SHMEM, 0x100, NULL, shmem_read, shmem_write);
}

static i2c_device *add_device(uint8_t addr, void (*after)(i2c_device *, uint8_t, uint8_t))
{
    i2c_device *d = &devices[n_devices++];

    d->addr = addr;
    d->present = 1;
    d->after_write = after;
    return d;
}

/* The board's descriptor with the channel moved to the agent's window. */
static board_rockchip_npu moved(const board_rockchip_npu *b)
{
    board_rockchip_npu m = *b;

    m.scmi.shmem = TEST_SHMEM;
    return m;
}

static const scmi_channel channel = {TEST_SHMEM, TEST_SMC_ID};

/* ---- SCMI client ------------------------------------------------------------------ */

static void test_scmi(void)
{
    uint64_t hz = 0;
    uint32_t h;

    fresh(6);
    CHECK_EQ_U(scmi_clock_rate_get(&channel, 6, &hz), SCMI_SUCCESS);
    CHECK_EQ_U(hz, 200000000u);
    h = agent.last_header;
    CHECK_EQ_U(h & 0xFFu, 0x6);          /* CLOCK_RATE_GET */
    CHECK_EQ_U((h >> 8) & 3u, 0);        /* a command */
    CHECK_EQ_U((h >> 10) & 0xFFu, 0x14); /* the clock protocol */
    CHECK_EQ_U(agent.words[1] & 1u, 1u); /* the channel is free again */
    CHECK_EQ_U(scmi_clock_rate_set(&channel, 6, 800000000u), SCMI_SUCCESS);
    CHECK_EQ_U(agent.last_header & 0xFFu, 0x5);
    CHECK(((agent.last_header >> 18) & 0x3FFu) != ((h >> 18) & 0x3FFu)); /* a new token */
    CHECK_EQ_U(agent.words[0x14 / 4], 8u); /* the reply: header + status */
    CHECK_EQ_U(agent.hz, 800000000u);
    CHECK_EQ_U(scmi_clock_rate_get(&channel, 6, &hz), SCMI_SUCCESS);
    CHECK_EQ_U(hz, 800000000u);
    CHECK_EQ_U(scmi_clock_enable(&channel, 6, 1), SCMI_SUCCESS);
    CHECK_EQ_U(agent.last_header & 0xFFu, 0x7);
    /* rates above 4 GHz travel as two words */
    agent.hz = 0x123456789ull;
    CHECK_EQ_U(scmi_clock_rate_get(&channel, 6, &hz), SCMI_SUCCESS);
    CHECK_EQ_U(hz, 0x123456789ull);
    /* the agent's own refusals come back as they are */
    CHECK_EQ_U(scmi_clock_rate_set(&channel, 6, 1000000063u), SCMI_INVALID_PARAMETERS);
    CHECK_EQ_U(scmi_clock_rate_set(&channel, 7, 800000000u), SCMI_NOT_FOUND);
    agent.answer = SCMI_DENIED;
    CHECK_EQ_U(scmi_clock_rate_set(&channel, 6, 800000000u), SCMI_DENIED);
    agent.answer = 0;
    /* transport failures: each is COMMS_ERROR, logged with its cause */
    agent.leave_busy = 1;
    CHECK_EQ_U(scmi_clock_rate_get(&channel, 6, &hz), SCMI_COMMS_ERROR);
    CHECK(logged("without freeing the channel"));
    CHECK_EQ_U(scmi_clock_rate_get(&channel, 6, &hz), SCMI_COMMS_ERROR); /* still busy */
    CHECK(logged("not free"));
    agent.leave_busy = 0;
    agent.words[1] = 1u;
    agent.flag_error = 1;
    CHECK_EQ_U(scmi_clock_rate_get(&channel, 6, &hz), SCMI_COMMS_ERROR);
    CHECK(logged("channel error"));
    agent.flag_error = 0;
    agent.wrong_header = 1;
    CHECK_EQ_U(scmi_clock_rate_get(&channel, 6, &hz), SCMI_COMMS_ERROR);
    CHECK(logged("header"));
    agent.wrong_header = 0;
    agent.reply_length = 8; /* a RATE_GET reply without its rate */
    hz = 7;
    CHECK_EQ_U(scmi_clock_rate_get(&channel, 6, &hz), SCMI_COMMS_ERROR);
    CHECK(logged("shorter"));
    CHECK_EQ_U(hz, 7);
    agent.reply_length = 4; /* not even a status */
    CHECK_EQ_U(scmi_clock_rate_set(&channel, 6, 800000000u), SCMI_COMMS_ERROR);
    CHECK(logged("length"));
    agent.reply_length = 0;
    /* no secure firmware answers this function id */
    {
        const scmi_channel other = {TEST_SHMEM, 0x82000011u};
        CHECK_EQ_U(scmi_clock_rate_get(&other, 6, &hz), SCMI_COMMS_ERROR);
        CHECK(logged("SMC function id"));
    }
    CHECK(strcmp(scmi_status_name(SCMI_DENIED), "DENIED") == 0);
    CHECK(strcmp(scmi_status_name(SCMI_PROTOCOL_ERROR), "PROTOCOL_ERROR") == 0);
    CHECK(strcmp(scmi_status_name(-11), "unknown") == 0);
    CHECK(strcmp(scmi_status_name(1), "unknown") == 0);
}

/* ---- I2C master -------------------------------------------------------------------- */

/* A fresh scenario with one device at addr on a controller at test_bus. */
static const rk_i2c_bus test_bus = {0xFEA90000u, 200000000u, 100000u, 2000u};

static i2c_device *device_on_test_bus(uint32_t clock_id, uint8_t addr,
                                      void (*after)(i2c_device *, uint8_t, uint8_t))
{
    fresh(clock_id);
    map(test_bus.base, 0x1000, NULL, i2c_read, i2c_write);
    return add_device(addr, after);
}

static void test_i2c(void)
{
    static const uint32_t clocks[] = {24000000u, 100000000u, 200000000u, 198000000u};
    static const uint32_t rates[] = {100000u, 400000u, 1000000u};
    const rk_i2c_bus *bus = &test_bus;
    uint8_t v = 0;
    uint64_t t0;

    /* SCL = clk / (8 x (divl + 1 + divh + 1)) never above the bus rate, within
     * one divider step of it, and low at least as long as high */
    for (unsigned c = 0; c < 4; c++)
        for (unsigned r = 0; r < 3; r++) {
            uint32_t d = rk_i2c_clkdiv(clocks[c], rates[r]);
            uint32_t divl = d & 0xFFFFu, divh = d >> 16, total = divl + divh + 2u;
            CHECK((uint64_t)clocks[c] <= (uint64_t)rates[r] * 8u * total);
            CHECK((uint64_t)clocks[c] > (uint64_t)rates[r] * 8u * (total - 1u) || total == 2u);
            CHECK(divl >= divh && divl - divh <= 1u);
        }
    CHECK_EQ_U(rk_i2c_clkdiv(200000000u, 100000u), 0x007C007Cu); /* 250 x 8 clocks */

    i2c_device *d = device_on_test_bus(6, 0x42, NULL);
    d->regs[0x10] = 0x5A;
    rk_i2c_init(bus);
    CHECK_EQ_U(ctrl.clkdiv, 0x007C007Cu);
    CHECK_EQ_U(rk_i2c_read_reg(bus, 0x42, 0x10, &v), 0);
    CHECK_EQ_U(v, 0x5A);
    CHECK_EQ_U(rk_i2c_write_reg(bus, 0x42, 0x11, 0xC3), 0);
    CHECK_EQ_U(d->regs[0x11], 0xC3);
    CHECK_EQ_U(d->writes, 1);
    CHECK(!ctrl.started && ctrl.con == 0); /* stopped and off after each transfer */
    /* nobody at 0x43: a NAK, logged; the bus is released */
    errors = 0;
    CHECK_EQ_U(rk_i2c_read_reg(bus, 0x43, 0x10, &v), RK_I2C_NAK);
    CHECK_EQ_U(rk_i2c_write_reg(bus, 0x43, 0x10, 1), RK_I2C_NAK);
    CHECK_EQ_U(errors, 2);
    CHECK(logged("0x43") && logged("no acknowledge"));
    CHECK(!ctrl.started);
    /* a controller that never answers: bounded waits */
    ctrl.dead = 1;
    t0 = hal_time_us();
    CHECK_EQ_U(rk_i2c_write_reg(bus, 0x42, 0x11, 0), RK_I2C_TIMEOUT);
    CHECK(logged("timed out"));
    CHECK(hal_time_us() - t0 < 1000000u);
    CHECK_EQ_U(rk_i2c_read_reg(bus, 0x42, 0x11, &v), RK_I2C_TIMEOUT);
    unmap_all();
}

/* ---- regulators ---------------------------------------------------------------------- */

static void test_rk8602(void)
{
    const npu_regulator r = {"vdd_test", &test_bus, 0x42, 550000u, 950000u, 10u};
    uint32_t uv = 0;
    i2c_device *d;

    d = device_on_test_bus(6, 0x42, rk8602_written);
    d->regs[0x03] = 0x8A; /* vendor bits, die ID 10 */
    d->regs[0x06] = 0x30;
    /* the lowest selector at or above the asked voltage */
    CHECK_EQ_U(rk8602_set(&r, 850000u, &uv), 0);
    CHECK_EQ_U(uv, 850000u);
    CHECK_EQ_U(rk8602_output(d), 850000u);
    CHECK_EQ_U(rk8602_set(&r, 851000u, &uv), 0);
    CHECK_EQ_U(uv, 856250u);
    CHECK_EQ_U(rk8602_output(d), 856250u);
    /* the voltage is written before the enable: the first change it makes
     * is the new voltage, never an enable at the old one */
    n_trace = 0;
    d->regs[0x00] = 0;
    CHECK_EQ_U(rk8602_set(&r, 700000u, &uv), 0);
    CHECK(first_of(EV_VOLTAGE) >= 0 && trace[last_of(EV_VOLTAGE)].a == 700000u);
    for (unsigned i = 0; i < n_trace; i++)
        CHECK(trace[i].a == 0 || trace[i].a == 700000u);
    /* outside the board's limits: refused before any bus traffic */
    ctrl.transfers = 0;
    CHECK_EQ_U(rk8602_set(&r, 500000u, &uv), -1);
    CHECK_EQ_U(rk8602_set(&r, 1000000u, &uv), -1);
    CHECK(logged("outside the board's"));
    CHECK_EQ_U(ctrl.transfers, 0);
    /* another chip: left untouched */
    d->regs[0x03] = 0x88;
    d->writes = 0;
    CHECK_EQ_U(rk8602_set(&r, 850000u, &uv), -1);
    CHECK(logged("not an RK8602"));
    CHECK_EQ_U(d->writes, 0);
    /* writes that do not take: the read-back says so */
    d->regs[0x03] = 0x8A;
    d->ignore_writes = 1;
    d->regs[0x06] = 0;
    CHECK_EQ_U(rk8602_set(&r, 850000u, &uv), -1);
    CHECK(logged("reads 0x00 after writing 0x38"));
    d->present = 0;
    CHECK_EQ_U(rk8602_set(&r, 850000u, &uv), -1);
    unmap_all();
}

static void test_rk809(void)
{
    const npu_regulator r = {"vdd_test", &test_bus, 0x20, 500000u, 1350000u, 10u};
    uint32_t uv = 0;
    i2c_device *d;

    d = device_on_test_bus(2, 0x20, rk809_written);
    d->regs[0xED] = 0x80;
    d->regs[0xEE] = 0x92; /* RK809, revision 2 */
    d->regs[0xB1] = 0x05; /* DCDC1 and DCDC3 on: they must stay on */
    d->regs[0xC4] = 0x80 | 0x10;
    CHECK_EQ_U(rk809_dcdc4_set(&r, 1000000u, &uv), 0);
    CHECK_EQ_U(uv, 1000000u);
    CHECK_EQ_U(rk809_output(d), 1000000u);
    CHECK_EQ_U(d->regs[0xB1], 0x0D);
    CHECK_EQ_U(d->regs[0xC4] & 0x80u, 0x80u); /* the bit above the selector is kept */
    CHECK_EQ_U(rk809_dcdc4_set(&r, 900001u, &uv), 0);
    CHECK_EQ_U(uv, 912500u);
    CHECK_EQ_U(rk809_dcdc4_set(&r, 1350000u, &uv), 0);
    CHECK_EQ_U(rk809_output(d), 1350000u);
    CHECK_EQ_U(rk809_dcdc4_set(&r, 1400000u, &uv), -1);
    /* an RK817 (the ZERO 3's PMIC, whose DCDC4 is not an NPU rail) */
    d->regs[0xED] = 0x81;
    d->regs[0xEE] = 0x70;
    d->writes = 0;
    CHECK_EQ_U(rk809_dcdc4_set(&r, 1000000u, &uv), -1);
    CHECK(logged("not an RK809 (ID 0x8170)"));
    CHECK_EQ_U(d->writes, 0);
    unmap_all();
}

/* ---- the boards' bring-up ---------------------------------------------------------- */

/* The vendor kernels' NPU operating points (rate -> the highest voltage of
 * its row over the silicon bins): RK3588 rk3588s.dtsi npu_opp_table, RK3568
 * rk3568.dtsi npu_opp_table (hardware.md §2.5). */
static uint32_t opp_uv(int rk3588, uint64_t hz)
{
    if (rk3588)
        return hz <= 700000000u   ? 700000u
               : hz <= 800000000u ? 750000u
               : hz <= 900000000u ? 800000u
                                  : 850000u;
    return hz <= 700000000u   ? 825000u
           : hz <= 800000000u ? 875000u
           : hz <= 900000000u ? 925000u
                              : 1000000u;
}

/* A board's facts: the SCMI channel and clock id (hardware.md §2.5), a rate
 * TF-A takes, a voltage at or above the vendor's OPP for it and inside the
 * rail's limits (min_uv..max_uv, the board's device tree). */
static void check_facts(const board_rockchip_npu *b, uint32_t clock_id, int rk3588, uint32_t min_uv,
                        uint32_t max_uv)
{
    CHECK_EQ_U(b->scmi.shmem, 0x0010F000u);
    CHECK_EQ_U(b->scmi.smc_id, 0x82000010u);
    CHECK_EQ_U(b->clock_id, clock_id);
    CHECK(rate_in_table(b->clock_hz));
    CHECK(b->supply_uv >= opp_uv(rk3588, b->clock_hz));
    CHECK(b->supply_uv >= min_uv && b->supply_uv <= max_uv);
}

/* The NPU windows, the PMU, I2C1 and the pin controllers of an RK3588. */
static void rk3588_board(void)
{
    fresh(6);
    pmu.pwr_con = 0x3Au;  /* every NPU domain off */
    pmu.idle_req = 0x0Eu; /* and idle */
    pmu.never_repairs = 0;
    agent.domains_on = rk3588_all_on;
    map(0xFDAB0000u, 0x30000, (void *)(uintptr_t)EV_NPU, recorder_read, recorder_write);
    map(0xFD8D8000u, 0x1000, NULL, pmu3588_read, pmu3588_write);
    map(0xFEA90000u, 0x1000, NULL, i2c_read, i2c_write);
    map(0xFD5F0000u, 0x10000, (void *)(uintptr_t)EV_PINMUX, recorder_read, recorder_write);
    map(0xFD7C0000u, 0x1000, (void *)(uintptr_t)EV_GATES, recorder_read, recorder_write);
    i2c_device *d = add_device(0x42, rk8602_written);
    d->regs[0x03] = 0x8A;
    d->regs[0x00] = 0x80; /* on at boot (regulator-boot-on) */
    d->regs[0x06] = 0x28;
}

/* The 4-bit field of pin `field` after the hiword-masked writes to `off`
 * in the trace (-1: never written). */
static int ioc_field(enum ev_kind k, uint32_t off, unsigned shift, unsigned width)
{
    uint32_t mask = ((1u << width) - 1u) << shift, v = 0;
    int written = 0;

    for (unsigned i = 0; i < n_trace; i++)
        if (trace[i].kind == k && trace[i].a == off && (trace[i].b >> 16) & mask) {
            v = (v & ~((trace[i].b >> 16) & mask)) | (trace[i].b & (trace[i].b >> 16) & mask);
            written = 1;
        }
    return written ? (int)((v & mask) >> shift) : -1;
}

/* I2C1 m2 (Linux rk3588-base-pinctrl.dtsi i2c1m2_xfer: GPIO0_D4 SCL and
 * D5 SDA, function 9, no pull, Schmitt): function 8 in PMU2_IOC
 * (0xFD5F4010: "BUS_IOC decides"), 9 in BUS_IOC (0xFD5F801C); CLK_I2C1 at
 * 200 MHz (CRU CLKSEL_CON38 bit 6 = 0), PCLK_I2C1 (CLKGATE_CON10 bit 8)
 * and CLK_I2C1 (CLKGATE_CON11 bit 0) running. */
static void check_rk3588_pins(void)
{
    CHECK_EQ_U(ioc_field(EV_PINMUX, 0x4010, 0, 4), 8);
    CHECK_EQ_U(ioc_field(EV_PINMUX, 0x4010, 4, 4), 8);
    CHECK_EQ_U(ioc_field(EV_PINMUX, 0x801C, 0, 4), 9);
    CHECK_EQ_U(ioc_field(EV_PINMUX, 0x801C, 4, 4), 9);
    CHECK_EQ_U(ioc_field(EV_GATES, 0x300 + 4 * 38, 6, 1), 0);
    CHECK_EQ_U(ioc_field(EV_GATES, 0x800 + 4 * 10, 8, 1), 0);
    CHECK_EQ_U(ioc_field(EV_GATES, 0x800 + 4 * 11, 0, 1), 0);
}

static void check_rk3588_order(void)
{
    int last_supply = last_of(EV_VOLTAGE), rate = first_of(EV_RATE);

    /* supply, then the domains in their order, then the clock; the NPU untouched */
    CHECK(first_of(EV_PINMUX) >= 0 && last_of(EV_PINMUX) < first_of(EV_VOLTAGE));
    CHECK(first_of(EV_GATES) >= 0 && last_of(EV_GATES) < first_of(EV_VOLTAGE));
    CHECK(last_supply >= 0 && last_supply < first_of(EV_DOMAIN));
    CHECK_EQ_U(count_of(EV_DOMAIN), 4);
    for (unsigned i = 0; i < 4 && first_of(EV_DOMAIN) >= 0; i++)
        CHECK_EQ_U(trace[first_of(EV_DOMAIN) + (int)i].a, (uint32_t)rk3588_domains[i][0]);
    CHECK(rate > last_of(EV_DOMAIN));
    CHECK_EQ_U(count_of(EV_RATE), 1);
    CHECK(!agent.changed_with_domains_off);
    CHECK_EQ_U(count_of(EV_NPU), 0);
}

static void test_rk3588(void)
{
    board_rockchip_npu b = moved(&rk3588_npu);
    board_npu_state st;

    check_facts(&rk3588_npu, 6, 1, 550000u, 950000u);

    rk3588_board();
    CHECK_EQ_U(board_rockchip_npu_up(&b, &st), 0);
    CHECK_EQ_U(st.supply, 1);
    CHECK_EQ_U(st.supply_uv, rk3588_npu.supply_uv);
    CHECK_EQ_U(rk8602_output(&devices[0]), rk3588_npu.supply_uv);
    CHECK(st.powered && rk3588_all_on() && pmu.idle_req == 0);
    CHECK_EQ_U(st.clock_set, SCMI_SUCCESS);
    CHECK_EQ_U(st.clock_hz, rk3588_npu.clock_hz);
    CHECK_EQ_U(agent.hz, rk3588_npu.clock_hz);
    check_rk3588_order();
    CHECK_EQ_U(errors, 0);
    check_rk3588_pins();
    board_rockchip_npu_report(&b, &st);

    /* no RK8602 answers: the supply is reported, the domains come up, the
     * clock stays at its boot rate (the rail's voltage is unknown) */
    rk3588_board();
    devices[0].present = 0;
    CHECK_EQ_U(board_rockchip_npu_up(&b, &st), 0);
    CHECK_EQ_U(st.supply, -1);
    CHECK(st.powered);
    CHECK_EQ_U(count_of(EV_RATE), 0);
    CHECK_EQ_U(st.clock_read, SCMI_SUCCESS);
    CHECK_EQ_U(st.clock_hz, 200000000u);
    CHECK(logged("clock stays at its boot rate"));
    board_rockchip_npu_report(&b, &st);

    /* the firmware refuses the rate: reported, the NPU runs at the boot rate */
    rk3588_board();
    agent.answer = SCMI_DENIED;
    CHECK_EQ_U(board_rockchip_npu_up(&b, &st), 0);
    CHECK_EQ_U(st.clock_set, SCMI_DENIED);
    CHECK(logged("DENIED"));
    CHECK_EQ_U(st.clock_read, SCMI_DENIED);
    board_rockchip_npu_report(&b, &st);

    /* the firmware takes the rate but runs the clock at another (the PLL's
     * nearest): the report shows what it runs at, nothing fails */
    rk3588_board();
    agent.runs_at = 990000000u;
    CHECK_EQ_U(board_rockchip_npu_up(&b, &st), 0);
    CHECK_EQ_U(st.clock_set, SCMI_SUCCESS);
    CHECK_EQ_U(st.clock_hz, 990000000u);
    CHECK_EQ_U(errors, 0);
    board_rockchip_npu_report(&b, &st);

    /* a channel the firmware never gives back */
    rk3588_board();
    agent.leave_busy = 1;
    CHECK_EQ_U(board_rockchip_npu_up(&b, &st), 0);
    CHECK_EQ_U(st.clock_set, SCMI_COMMS_ERROR);
    CHECK_EQ_U(st.clock_read, SCMI_COMMS_ERROR);

    /* a domain whose memory repair never ends: the NPU is unusable, the
     * clock is not touched */
    rk3588_board();
    pmu.never_repairs = 1;
    CHECK_EQ_U(board_rockchip_npu_up(&b, &st), -1);
    CHECK(logged("memory repair"));
    CHECK(!st.powered);
    CHECK_EQ_U(agent.commands, 0);
    board_rockchip_npu_report(&b, &st);
    unmap_all();
}

static void rk3568_board(uint8_t id_lsb)
{
    fresh(2);
    pmu.pwr_con = 0x2u;  /* PD_NPU off */
    pmu.idle_req = 0x4u; /* and idle */
    map(0xFDE40000u, 0x10000, (void *)(uintptr_t)EV_NPU, recorder_read, recorder_write);
    map(0xFDD90000u, 0x1000, NULL, pmu3568_read, pmu3568_write);
    map(0xFDD20000u, 0x1000, (void *)(uintptr_t)EV_GATES, recorder_read, recorder_write);
    map(0xFDD40000u, 0x1000, NULL, i2c_read, i2c_write);
    i2c_device *d = add_device(0x20, rk809_written);
    d->regs[0xED] = id_lsb == 0x70 ? 0x81 : 0x80;
    d->regs[0xEE] = id_lsb;
    d->regs[0xB1] = 0x07; /* DCDC1-3 on, DCDC4 (vdd_npu) off */
}

static void test_rk3568(void)
{
    board_rockchip_npu b = moved(&rk3568_npu);
    board_npu_state st;

    check_facts(&rk3568_npu, 2, 0, 500000u, 1350000u);

    rk3568_board(0x92);
    CHECK_EQ_U(board_rockchip_npu_up(&b, &st), 0);
    CHECK_EQ_U(st.supply, 1);
    CHECK_EQ_U(rk809_output(&devices[0]), rk3568_npu.supply_uv);
    CHECK_EQ_U(devices[0].regs[0xB1], 0x0F);
    CHECK(st.powered && !(pmu.pwr_con & 2u) && !(pmu.idle_req & 4u));
    CHECK_EQ_U(st.clock_hz, rk3568_npu.clock_hz);
    /* supply, then the domain's clocks and the domain, then the rate */
    CHECK(last_of(EV_VOLTAGE) < first_of(EV_GATES));
    CHECK(first_of(EV_GATES) < first_of(EV_DOMAIN));
    CHECK(first_of(EV_DOMAIN) >= 0 && first_of(EV_DOMAIN) < first_of(EV_RATE));
    CHECK_EQ_U(count_of(EV_NPU), 0);
    CHECK_EQ_U(errors, 0);
    board_rockchip_npu_report(&b, &st);

    /* the ZERO 3's RK817 at the same address: nothing written, boot clock */
    rk3568_board(0x70);
    CHECK_EQ_U(board_rockchip_npu_up(&b, &st), 0);
    CHECK_EQ_U(st.supply, -1);
    CHECK_EQ_U(devices[0].writes, 0);
    CHECK(st.powered);
    CHECK_EQ_U(count_of(EV_RATE), 0);
    CHECK_EQ_U(st.clock_hz, 200000000u);
    unmap_all();
}

int main(void)
{
    test_scmi();
    test_i2c();
    test_rk8602();
    test_rk809();
    test_rk3588();
    test_rk3568();
    hal_smc_emulate(NULL);
    return test_report("board_rockchip");
}
