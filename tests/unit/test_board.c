/*
 * test_board - board_init() brings the platform up as documented and the
 * report prints; on bare metal the NPU windows still reach a registered
 * device after the MMU is on (aarch64).
 */
#include "board.h"
#include "hal.h"
#include "rknn_api.h"
#include "test_util.h"

static uint32_t last_write;
static uint32_t dev_read(void *ctx, uintptr_t off) { (void)ctx; return 0xA5000000u | (uint32_t)off; }
static void dev_write(void *ctx, uintptr_t off, uint32_t v) { (void)ctx; (void)off; last_write = v; }

int main(void)
{
    CHECK(board_init() == RKNN_SUCC);
    CHECK(board_init() == RKNN_SUCC); /* idempotent */
    const rknpu_platform_config *p = rknpu_platform_get();
    if (!CHECK(p != NULL))
        return test_report("board");
    board_print_report();
    /* A device at the SoC's NPU core 0 address answers after board_init. */
    hal_mmio_region r = {p->npu_base[0], 0x10000, NULL, dev_read, dev_write};
    CHECK(hal_mmio_register(&r) == 0);
    CHECK(hal_mmio_register(&r) == -1); /* overlap refused */
    CHECK_EQ_U(hal_mmio_read32(p->npu_base[0] + 0x28), 0xA5000028u);
    hal_mmio_write32(p->npu_base[0] + 0x24, 0x1FFFF);
    CHECK_EQ_U(last_write, 0x1FFFF);
    hal_mmio_unregister(&r);
    return test_report("board");
}
