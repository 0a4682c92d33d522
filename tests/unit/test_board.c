/*
 * test_board - board_init() brings the platform up as documented and the
 * report prints; the SoC's NPU register windows answer (the virtual NPU on
 * the host and QEMU boards, through trap-and-emulate on bare metal, also
 * with the MMU on), and a second software device next to them works too.
 */
#include "board.h"
#include "hal.h"
#include "rknn_api.h"
#include "rknpu_bm.h"
#include "test_util.h"

#define PC_VERSION_OFFSET 0x0
#define RK3588_PC_VERSION 0x46495245u /* "FIRE", read on silicon (hardware.md §1.2) */

static uint32_t last_write;
static uint32_t dev_read(void *ctx, uintptr_t off)
{
    (void)ctx;
    return 0xA5000000u | (uint32_t)off;
}
static void dev_write(void *ctx, uintptr_t off, uint32_t v)
{
    (void)ctx;
    (void)off;
    last_write = v;
}

int main(void)
{
    uint32_t traps;

    CHECK(board_init() == RKNN_SUCC);
    CHECK(board_init() == RKNN_SUCC); /* idempotent */
    const rknpu_platform_config *p = rknpu_platform_get();
    if (!CHECK(p != NULL))
        return test_report("board");
    board_print_report();
    /* The NPU answers at core 0's documented address. */
    traps = hal_mmio_trap_count;
    CHECK_EQ_U(hal_mmio_read32(p->npu_base[0] + PC_VERSION_OFFSET), RK3588_PC_VERSION);
    CHECK(hal_mmio_trap_count > traps);
    /* Another device just below the NPU windows: registered, overlap refused. */
    uintptr_t base = p->npu_base[0] - 0x10000u;
    hal_mmio_region r = {base, 0x10000, NULL, dev_read, dev_write};
    hal_mmio_region clash = {p->npu_base[0], 0x100, NULL, dev_read, dev_write};
    CHECK(hal_mmio_register(&r) == 0);
    CHECK(hal_mmio_register(&clash) == -1); /* the NPU owns that window */
    CHECK_EQ_U(hal_mmio_read32(base + 0x28), 0xA5000028u);
    hal_mmio_write32(base + 0x24, 0x1FFFF);
    CHECK_EQ_U(last_write, 0x1FFFF);
    hal_mmio_unregister(&r);
    return test_report("board");
}
