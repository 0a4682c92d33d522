/*
 * board_rockchip_npu.c - the NPU bring-up the Rockchip boards share
 * (board_rockchip.h): the supply, the power domains, the clock, in that
 * order, each step logged and kept for the platform report; and the
 * PMU/CRU register idiom (hiword-masked writes, bounded waits).
 */
#include <stdio.h>

#include "board_rockchip.h"
#include "hal.h"

void board_rockchip_write_bit(uintptr_t reg, unsigned bit, unsigned value)
{
    hal_mmio_write32(reg, (1u << (bit + 16)) | ((value & 1u) << bit));
}

int board_rockchip_wait_bit(uintptr_t reg, unsigned bit, unsigned want, uint32_t timeout_us)
{
    uint64_t end = hal_time_us() + timeout_us;

    do {
        if (((hal_mmio_read32(reg) >> bit) & 1u) == want)
            return 0;
    } while (hal_time_us() < end);
    return -1;
}

static void supply_up(const board_rockchip_npu *npu, board_npu_state *st)
{
    if (!npu->supply_set) {
        st->supply = 0;
        return;
    }
    if (npu->supply_set(npu->supply_uv, &st->supply_uv) != 0) {
        st->supply = -1;
        HAL_LOG_ERR("npu bring-up: supply %s not set: the clock stays at its boot rate",
                    npu->supply_name);
        return;
    }
    st->supply = 1;
    HAL_LOG_INFO("npu bring-up: 1/3 supply %s at %lu uV", npu->supply_name,
                 (unsigned long)st->supply_uv);
}

static void clock_up(const board_rockchip_npu *npu, board_npu_state *st)
{
    st->clock_set = 1;
    if (st->supply >= 0) {
        st->clock_set = scmi_clock_rate_set(&npu->scmi, npu->clock_id, npu->clock_hz);
        if (st->clock_set != SCMI_SUCCESS)
            HAL_LOG_ERR("npu bring-up: SCMI clock %lu to %lu Hz refused: %s",
                        (unsigned long)npu->clock_id, (unsigned long)npu->clock_hz,
                        scmi_status_name(st->clock_set));
    }
    st->clock_read = scmi_clock_rate_get(&npu->scmi, npu->clock_id, &st->clock_hz);
    if (st->clock_read != SCMI_SUCCESS)
        HAL_LOG_ERR("npu bring-up: SCMI clock %lu unreadable: %s", (unsigned long)npu->clock_id,
                    scmi_status_name(st->clock_read));
    else if (st->clock_set == SCMI_SUCCESS && st->clock_hz != npu->clock_hz)
        HAL_LOG_WARN("npu bring-up: SCMI clock %lu runs at %lu Hz, asked %lu Hz",
                     (unsigned long)npu->clock_id, (unsigned long)st->clock_hz,
                     (unsigned long)npu->clock_hz);
    else
        HAL_LOG_INFO("npu bring-up: 3/3 clock at %lu Hz", (unsigned long)st->clock_hz);
}

int board_rockchip_npu_up(const board_rockchip_npu *npu, board_npu_state *st)
{
    *st = (board_npu_state){0};
    supply_up(npu, st);
    if (npu->power_on() != 0)
        return -1;
    st->powered = 1;
    HAL_LOG_INFO("npu bring-up: 2/3 power domains on");
    clock_up(npu, st);
    return 0;
}

void board_rockchip_npu_report(const board_rockchip_npu *npu, const board_npu_state *st)
{
    if (st->supply == 1)
        printf("  npu supply   %s (%s) at %lu uV\n", npu->supply_name, npu->board,
               (unsigned long)st->supply_uv);
    else if (st->supply == 0)
        printf("  npu supply   always on (%s: nothing to enable)\n", npu->board);
    else
        printf("  npu supply   %s (%s) NOT SET (see the log)\n", npu->supply_name, npu->board);
    printf("  npu power    %s\n", st->powered ? "domains on" : "domains NOT on");
    if (!st->powered)
        return;
    if (st->clock_read == SCMI_SUCCESS)
        printf("  npu clock    %llu Hz%s (SCMI clock %lu, asked %llu Hz)\n",
               (unsigned long long)st->clock_hz,
               st->clock_set == SCMI_SUCCESS ? "" : ", the boot rate", (unsigned long)npu->clock_id,
               (unsigned long long)npu->clock_hz);
    else
        printf("  npu clock    unknown: SCMI clock %lu unreadable (%s)\n",
               (unsigned long)npu->clock_id, scmi_status_name(st->clock_read));
}
