/* board_rockchip.h - the bring-up the Rockchip boards share (board_rockchip.c,
 * board_rockchip_npu.c). */
#ifndef BOARD_ROCKCHIP_H
#define BOARD_ROCKCHIP_H

#include <stddef.h>
#include <stdint.h>

#include "rknpu_bm.h"
#include "scmi_clock.h"

/* What a board does to make its NPU usable, in this order: the supply set
 * for the clock, the power domains, then the clock (docs/hardware.md §2.5).
 * The clock comes after the domains: changing it with them off wedges
 * RK3588's SCMI server (docs/hardware.md §2.2). */
typedef struct {
    const char *board;       /* the reference board, for the report */
    const char *supply_name; /* its NPU rail; NULL: nothing to enable */
    /* set the rail to at least uv and enable it: 0 with *set_uv, or -1 logged */
    int (*supply_set)(uint32_t uv, uint32_t *set_uv);
    uint32_t supply_uv;    /* for clock_hz (the vendor's OPP) */
    int (*power_on)(void); /* the power domains: 0, or -1 logged */
    scmi_channel scmi;
    uint32_t clock_id; /* SCMI clock of the NPU */
    uint64_t clock_hz; /* the rate to run at */
} board_rockchip_npu;

/* What the bring-up did, for the platform report. */
typedef struct {
    int supply;         /* 1 set, 0 not needed, -1 failed */
    uint32_t supply_uv; /* when set */
    int powered;        /* 1 when the domains came up */
    int clock_set;      /* SCMI status of the rate set; 1: not tried (see log) */
    int clock_read;     /* SCMI status of the read-back */
    uint64_t clock_hz;  /* read back when clock_read is 0 */
} board_npu_state;

/* Supply, power domains, clock, each logged (a trace of the order on the
 * console). 0 when the NPU may be used (perhaps at its boot rate: a clock
 * or supply failure is logged and reported, not fatal), -1 when its power
 * domains did not come up. The clock is raised only once its supply was
 * set (the rail's voltage is unknown otherwise). */
int board_rockchip_npu_up(const board_rockchip_npu *npu, board_npu_state *st);

/* The boards' NPUs: boards/rk3588/npu_rk3588.c, boards/rk3568/npu_rk3568.c. */
extern const board_rockchip_npu rk3588_npu, rk3568_npu;

/* The report's NPU lines. */
void board_rockchip_npu_report(const board_rockchip_npu *npu, const board_npu_state *st);

/* Identity map (DRAM write-back, peripherals and the SCMI channel Device),
 * board_rockchip_npu_up(), rknpu_platform_init() on the linker's carve-out.
 * RKNN_SUCC or an RKNN_ERR_* code; safe to repeat. */
int board_rockchip_init(rknpu_soc_id soc, const board_rockchip_npu *npu, board_npu_state *st);

/* Rockchip PMU/CRU registers are hiword-masked: bit 16 + n says the write
 * changes bit n. Sets bit `bit` of reg to value. */
void board_rockchip_write_bit(uintptr_t reg, unsigned bit, unsigned value);

/* Wait until bit `bit` of reg reads `want`: 0, or -1 after timeout_us. */
int board_rockchip_wait_bit(uintptr_t reg, unsigned bit, unsigned want, uint32_t timeout_us);

#endif
