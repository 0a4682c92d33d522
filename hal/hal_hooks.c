/*
 * hal_hooks.c - default (weak) implementations of the platform hooks
 * declared in rknpu_hooks.h. An RTOS overrides any of them by defining a
 * function with the same name; the linker then ignores the weak one.
 */
#include "hal.h"

#define HAL_WEAK __attribute__((weak))

HAL_WEAK uint64_t rknpu_hook_time_us(void)
{
    return hal_time_us();
}

HAL_WEAK void rknpu_hook_poll_yield(void)
{
}

HAL_WEAK void rknpu_hook_cache_clean(const void *addr, size_t size)
{
    hal_cache_clean_range(addr, size);
}

HAL_WEAK void rknpu_hook_cache_invalidate(const void *addr, size_t size)
{
    hal_cache_invalidate_range(addr, size);
}

HAL_WEAK uint64_t rknpu_hook_virt_to_phys(const void *virt)
{
    return hal_virt_to_dma(virt);
}

HAL_WEAK void *rknpu_hook_phys_to_virt(uint64_t phys)
{
    return hal_dma_to_virt(phys);
}

/* untested: boards/vnpu_attach.c and the RK boards define their own, so
 * only a board without one runs it. */
HAL_WEAK int rknpu_hook_npu_reset(unsigned core)
{
    (void)core;
    return -1;
}

HAL_WEAK void rknpu_hook_lock(void)
{
}

HAL_WEAK void rknpu_hook_unlock(void)
{
}

HAL_WEAK void rknpu_hook_inference_begin(const rknpu_job_owner *owner, unsigned core_mask)
{
    (void)owner;
    (void)core_mask;
}

HAL_WEAK void rknpu_hook_inference_end(const rknpu_job_owner *owner, unsigned core_mask, int result)
{
    (void)owner;
    (void)core_mask;
    (void)result;
}

/* untested: boards/host/host_submit_log.c defines its own for every host
 * test; firmware without a submission log runs it. */
HAL_WEAK void rknpu_hook_submit(const rknpu_submit_slice *slice)
{
    (void)slice;
}
