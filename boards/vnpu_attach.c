/*
 * vnpu_attach.c - put the virtual NPU behind the SoC's NPU register windows.
 * Boards without an NPU (the host, QEMU virt) call board_vnpu_attach() after
 * rknpu_platform_init(): the model gets the carve-out as its DMA window and
 * the HAL's trap registry routes every access to a core window to it. The
 * NPU reset hook resets the model's core.
 */
#include "board_common.h"
#include "hal.h"
#include "npu_regs.h"
#include "rknn_api.h"
#include "vnpu.h"

static vnpu_device vnpu;
static hal_mmio_region windows[VNPU_MAX_CORES];
static int attached;
static int dry_run;
static uint64_t busy_ticks;
void (*board_vnpu_after_kick)(void);

static uint32_t window_read(void *ctx, uintptr_t offset)
{
    return vnpu_mmio_read(&vnpu, (unsigned)(uintptr_t)ctx, (uint32_t)offset);
}

static void window_write(void *ctx, uintptr_t offset, uint32_t value)
{
    int kick = offset == NPU_PC_OPERATION_ENABLE && NPU_PC_OPERATION_ENABLE_OP_EN_GET(value);
    uint64_t t0 = kick ? hal_time_ticks() : 0;

    vnpu_mmio_write(&vnpu, (unsigned)(uintptr_t)ctx, (uint32_t)offset, value);
    if (kick)
        busy_ticks += hal_time_ticks() - t0; /* the model ran the job in that write */
    if (board_vnpu_after_kick && kick)
        board_vnpu_after_kick();
}

uint64_t board_vnpu_busy_ticks(void)
{
    return busy_ticks;
}

void board_vnpu_set_dry_run(int on)
{
    dry_run = on;
    vnpu_set_dry_run(&vnpu, on);
}

int board_vnpu_attach(const rknpu_platform_config *p, const npu_soc_profile *soc)
{
    vnpu_dma_window dma = {(uint32_t)p->carveout_phys, (uint32_t)p->carveout_size, p->carveout};

    for (unsigned i = 0; i < VNPU_MAX_CORES; i++) /* a no-op for windows not registered */
        hal_mmio_unregister(&windows[i]);
    attached = 0;
    if (vnpu_init(&vnpu, soc, &dma) != 0) {
        HAL_LOG_ERR("board: virtual NPU rejected the %s profile", soc->name);
        return RKNN_ERR_DEVICE_UNAVAILABLE;
    }
    vnpu_set_dry_run(&vnpu, dry_run);
    for (unsigned i = 0; i < soc->core_count && i < VNPU_MAX_CORES; i++) {
        windows[i] = (hal_mmio_region){p->npu_base[i], NPU_CORE_WINDOW_BYTES, (void *)(uintptr_t)i,
                                       window_read, window_write};
        if (hal_mmio_register(&windows[i]) != 0) {
            HAL_LOG_ERR("board: NPU core %u window at 0x%lx overlaps another device", i,
                        (unsigned long)p->npu_base[i]);
            while (i--) /* no half-attached NPU */
                hal_mmio_unregister(&windows[i]);
            return RKNN_ERR_DEVICE_UNAVAILABLE;
        }
    }
    attached = 1;
    return RKNN_SUCC;
}

vnpu_device *board_vnpu(void)
{
    return attached ? &vnpu : NULL;
}

/* The driver resets a core after a failed job: say first why the model
 * stopped it, if it did (a register it does not model, a bad address). */
int rknpu_hook_npu_reset(unsigned core)
{
    const char *why;

    if (!attached)
        return -1;
    why = vnpu_last_error(&vnpu, core);
    if (why && why[0])
        HAL_LOG_ERR("board: virtual NPU core %u: %s", core, why);
    vnpu_reset(&vnpu, core);
    return 0;
}
