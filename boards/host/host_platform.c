/*
 * host_platform.c - the host "board", built into the host library itself so
 * that unmodified rknn_* applications run on a PC without any set-up call:
 * the first rknn_init() brings up a carve-out in static memory (given a fake
 * NPU address below 4 GiB, as on silicon) and the virtual NPU.
 *
 * Environment: RKNPU_SOC=rk3588|rk3566|rk3568|rv1106 picks the NPU profile
 * (default: the build's -Dsoc); RKNPU_LOG_LEVEL=0..3 sets the log threshold.
 */
#define _DEFAULT_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <string.h>
#include <strings.h>

#include "board_common.h"
#include "hal.h"
#include "rknn_api.h"
#include "rknpu_platform_internal.h"

#define HOST_CARVEOUT_BYTES (64u << 20)
#define HOST_CARVEOUT_NPU_ADDRESS 0x10000000u

static uint8_t host_carveout[HOST_CARVEOUT_BYTES] __attribute__((aligned(4096)));

static rknpu_soc_id soc_from_env(void)
{
    static const struct { const char *name; rknpu_soc_id id; } socs[] = {
        {"rk3588", RKNPU_SOC_RK3588}, {"rk3566", RKNPU_SOC_RK3566},
        {"rk3568", RKNPU_SOC_RK3568}, {"rv1106", RKNPU_SOC_RV1106},
    };
    const char *s = getenv("RKNPU_SOC");

    for (size_t i = 0; s && i < sizeof socs / sizeof socs[0]; i++)
        if (strcasecmp(s, socs[i].name) == 0)
            return socs[i].id;
    return BOARD_SOC;
}

int rknpu_board_autoinit(void)
{
    rknpu_platform_config cfg = {0};
    const char *level = getenv("RKNPU_LOG_LEVEL");
    int ret;

    if (rknpu_platform_get())
        return RKNN_SUCC;
    if (level && level[0] >= '0' && level[0] <= '3')
        rknpu_log_threshold = level[0] - '0';
    cfg.soc = soc_from_env();
    cfg.carveout = host_carveout;
    cfg.carveout_size = sizeof host_carveout;
    cfg.carveout_phys = HOST_CARVEOUT_NPU_ADDRESS;
    ret = rknpu_platform_init(&cfg);
    if (ret != RKNN_SUCC)
        return ret;
    return board_vnpu_attach(rknpu_platform_get(), rknpu_platform_profile());
}

/* rknn_init(ctx, "model.rknn", 0, ...): the file is mapped read-only for the
 * context's lifetime (no heap: the model is read in place, as from flash). */
int rknpu_board_map_file(const char *path, const void **data, size_t *size)
{
    struct stat st;
    void *p;
    int fd = open(path, O_RDONLY);

    if (fd < 0) {
        HAL_LOG_ERR("rknn_init: cannot open model file '%s'", path);
        return RKNN_ERR_PARAM_INVALID;
    }
    if (fstat(fd, &st) != 0 || st.st_size <= 0) {
        close(fd);
        HAL_LOG_ERR("rknn_init: model file '%s' is empty or unreadable", path);
        return RKNN_ERR_MODEL_INVALID;
    }
    p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (p == MAP_FAILED) {
        HAL_LOG_ERR("rknn_init: cannot map model file '%s'", path);
        return RKNN_ERR_MALLOC_FAIL;
    }
    *data = p;
    *size = (size_t)st.st_size;
    return RKNN_SUCC;
}

void rknpu_board_unmap_file(const void *data, size_t size)
{
    munmap((void *)(uintptr_t)data, size);
}
