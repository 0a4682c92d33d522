/*
 * rknpu_platform.c - rknpu_platform_init() and the platform state: which SoC
 * this is, where its NPU cores are, and the carve-out allocator.
 */
#include <string.h>

#include "hal.h"
#include "npu_driver.h"
#include "rknn_api.h"
#include "rknpu_platform_internal.h"

#define DEFAULT_JOB_TIMEOUT_US 1000000u
#define CARVEOUT_ALIGN         4096u
#define NPU_ADDRESS_LIMIT      (1ull << 32)

/* Driver results pass through as rknn_* results (npu_driver.h). */
_Static_assert(NPU_OK == RKNN_SUCC && NPU_ERR_FAIL == RKNN_ERR_FAIL &&
                   NPU_ERR_TIMEOUT == RKNN_ERR_TIMEOUT &&
                   NPU_ERR_UNAVAILABLE == RKNN_ERR_DEVICE_UNAVAILABLE &&
                   NPU_ERR_PARAM == RKNN_ERR_PARAM_INVALID,
               "npu_status values must equal the vendor error codes");

static rknpu_platform_config platform;
static const npu_soc_profile *profile;
static mem_carveout carveout;
static npu_device npu_dev;

static int check_carveout(const rknpu_platform_config *cfg, uint64_t phys)
{
    if (!cfg->carveout || cfg->carveout_size < CARVEOUT_ALIGN) {
        HAL_LOG_ERR("platform: carve-out missing or smaller than %lu bytes",
                    (unsigned long)(CARVEOUT_ALIGN));
        return RKNN_ERR_PARAM_INVALID;
    }
    if (((uintptr_t)cfg->carveout | phys) & (CARVEOUT_ALIGN - 1)) {
        HAL_LOG_ERR("platform: carve-out at %p (NPU address 0x%llx) is not 4 KiB aligned",
                    cfg->carveout, (unsigned long long)phys);
        return RKNN_ERR_PARAM_INVALID;
    }
    if (phys + cfg->carveout_size > NPU_ADDRESS_LIMIT) {
        HAL_LOG_ERR("platform: carve-out ends at NPU address 0x%llx, above 4 GiB: the NPU's "
                    "address registers are 32-bit",
                    (unsigned long long)(phys + cfg->carveout_size));
        return RKNN_ERR_PARAM_INVALID;
    }
    return RKNN_SUCC;
}

int rknpu_platform_init(const rknpu_platform_config *cfg)
{
    const npu_soc_profile *p;
    rknpu_platform_config c;
    mem_status ms;
    int ret;

    if (!cfg) {
        HAL_LOG_ERR("platform: config is NULL");
        return RKNN_ERR_PARAM_INVALID;
    }
    p = npu_soc_get(cfg->soc);
    if (!p) {
        HAL_LOG_ERR("platform: unknown SoC id %d", (int)cfg->soc);
        return RKNN_ERR_PARAM_INVALID;
    }
    c = *cfg;
    if (!c.carveout_phys)
        c.carveout_phys = (uint64_t)(uintptr_t)c.carveout;
    ret = check_carveout(&c, c.carveout_phys);
    if (ret != RKNN_SUCC)
        return ret;
    for (unsigned i = 0; i < RKNPU_MAX_CORES; i++)
        if (!c.npu_base[i])
            c.npu_base[i] = i < p->core_count ? p->core_base[i] : 0;
    if (!c.job_timeout_us)
        c.job_timeout_us = DEFAULT_JOB_TIMEOUT_US;
    ms = mem_carveout_init(&carveout, c.carveout, c.carveout_size);
    if (ms != MEM_OK) { /* unreachable: check_carveout passed a 4 KiB-aligned base and a size
                           of 4 KiB up to 4 GiB - phys, phys a non-zero multiple of 4 KiB */
        HAL_LOG_ERR("platform: carve-out rejected: %s", mem_status_name(ms));
        return RKNN_ERR_PARAM_INVALID;
    }
    hal_dma_window_set(c.carveout, c.carveout_phys, c.carveout_size);
    npu_device_init(&npu_dev, p, c.npu_base, c.job_timeout_us);
    platform = c;
    profile = p;
    HAL_LOG_INFO("platform: %s, %lu core(s), carve-out %zu KiB at NPU address 0x%llx", p->name,
                 (unsigned long)(p->core_count), c.carveout_size / 1024,
                 (unsigned long long)c.carveout_phys);
    return RKNN_SUCC;
}

const rknpu_platform_config *rknpu_platform_get(void)
{
    return profile ? &platform : NULL;
}

const char *rknpu_soc_name(rknpu_soc_id soc)
{
    const npu_soc_profile *p = npu_soc_get(soc);

    return p ? p->name : "unknown";
}

int rknpu_mem_get_stats(rknpu_mem_stats *stats)
{
    mem_stats st;

    if (!stats) {
        HAL_LOG_ERR("rknpu_mem_get_stats: stats is NULL");
        return RKNN_ERR_PARAM_INVALID;
    }
    if (!profile) {
        HAL_LOG_ERR("rknpu_mem_get_stats: rknpu_platform_init() has not been called");
        return RKNN_ERR_DEVICE_UNAVAILABLE;
    }
    rknpu_hook_lock();
    mem_carveout_stats(&carveout, &st);
    rknpu_hook_unlock();
    stats->total_bytes = st.total_bytes;
    stats->used_bytes = st.used_bytes;
    stats->free_bytes = st.total_bytes - st.used_bytes;
    stats->largest_free = st.largest_free;
    stats->peak_used_bytes = st.peak_used_bytes;
    stats->allocations = st.allocations;
    stats->failed = st.failed;
    return RKNN_SUCC;
}

mem_carveout *rknpu_platform_carveout(void)
{
    return profile ? &carveout : NULL;
}

#if RKNPU_BOARD_HOST /* its only caller: firmware is built for one SoC */
int rknpu_platform_switch_soc(rknpu_soc_id soc)
{
    const npu_soc_profile *p = npu_soc_get(soc);

    if (!p || !profile)
        return RKNN_ERR_DEVICE_UNAVAILABLE;
    for (unsigned i = 0; i < RKNPU_MAX_CORES; i++)
        platform.npu_base[i] = i < p->core_count ? p->core_base[i] : 0;
    platform.soc = soc;
    profile = p;
    npu_device_init(&npu_dev, p, platform.npu_base, platform.job_timeout_us);
    return RKNN_SUCC;
}
#endif

int rknpu_platform_in_carveout(const void *p, size_t size)
{
    return profile && mem_carveout_contains(&carveout, p, size);
}

npu_device *rknpu_platform_npu(void)
{
    return profile ? &npu_dev : NULL;
}

const npu_soc_profile *rknpu_platform_profile(void)
{
    return profile;
}

/* (the name in parentheses: not the log_strings=false macro) */
int(rknpu_carve_alloc)(size_t size, size_t align, void **out, const char *what)
{
    mem_status s = profile ? mem_carveout_alloc(&carveout, size, align, out) : MEM_ERR_PARAM;

    switch (s) {
    case MEM_OK: return RKNN_SUCC;
    case MEM_ERR_NO_SPACE:
    case MEM_ERR_NO_DESCRIPTOR:
        HAL_LOG_ERR("%s: %s", what, mem_status_name(s));
        return RKNN_ERR_MALLOC_FAIL;
    default: HAL_LOG_ERR("%s: %s", what, mem_status_name(s)); return RKNN_ERR_PARAM_INVALID;
    }
}

void rknpu_carve_free(void *p)
{
    mem_carveout_free(rknpu_platform_carveout(), p);
}

int rknpu_set_job_timeout(uint32_t timeout_us)
{
    if (!profile) {
        HAL_LOG_ERR("rknpu_set_job_timeout: rknpu_platform_init() has not been called");
        return RKNN_ERR_DEVICE_UNAVAILABLE;
    }
    if (timeout_us == 0) {
        HAL_LOG_ERR("rknpu_set_job_timeout: the timeout must be > 0");
        return RKNN_ERR_PARAM_INVALID;
    }
    platform.job_timeout_us = timeout_us;
    npu_dev.timeout_us = timeout_us;
    return RKNN_SUCC;
}
