/*
 * host_platform.c - the host "board", built into the host library itself so
 * that unmodified rknn_* applications run on a PC without any set-up call:
 * the first rknn_init() brings up a carve-out in static memory (given a fake
 * NPU address below 4 GiB, as on silicon) and the virtual NPU.
 *
 * The host serves every SoC profile: each rknn_init() makes the virtual NPU
 * the SoC its model names (while no other context is alive; the carve-out
 * stays as it is), unless rknpu_host_force_soc() chose one. Environment:
 * RKNPU_LOG_LEVEL=0..3 sets the log threshold.
 */
#define _DEFAULT_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "board_common.h"
#include "hal.h"
#include "rknn_api.h"
#include "rknpu_board.h"
#include "rknpu_platform_internal.h"

#define HOST_CARVEOUT_BYTES       (64u << 20)
#define HOST_CARVEOUT_NPU_ADDRESS 0x10000000u

static uint8_t host_carveout[HOST_CARVEOUT_BYTES] __attribute__((aligned(4096)));

static int forced_soc = -1; /* rknpu_host_force_soc(), -1: follow the model */

int rknpu_board_autoinit(void)
{
    rknpu_platform_config cfg = {0};
    const char *level = getenv("RKNPU_LOG_LEVEL");
    int ret;

    if (rknpu_platform_get())
        return RKNN_SUCC;
    if (level && level[0] >= '0' && level[0] <= '3')
        rknpu_log_threshold = level[0] - '0';
    cfg.soc = forced_soc >= 0 ? (rknpu_soc_id)forced_soc : BOARD_SOC;
    cfg.carveout = host_carveout;
    cfg.carveout_size = sizeof host_carveout;
    cfg.carveout_phys = HOST_CARVEOUT_NPU_ADDRESS;
    ret = rknpu_platform_init(&cfg);
    if (ret != RKNN_SUCC)
        return ret;
    host_submit_log_start();
    return board_vnpu_attach(rknpu_platform_get(), rknpu_platform_profile());
}

static int switch_soc(rknpu_soc_id soc)
{
    int ret = rknpu_platform_switch_soc(soc);

    if (ret == RKNN_SUCC)
        ret = board_vnpu_attach(rknpu_platform_get(), rknpu_platform_profile());
    if (ret == RKNN_SUCC)
        HAL_LOG_INFO("host: virtual NPU is now %s", rknpu_platform_profile()->name);
    return ret;
}

int rknpu_board_select_soc(const char *target_platform, int contexts_alive)
{
    const npu_soc_profile *want = npu_soc_find_platform(target_platform);
    int ret = rknpu_board_autoinit();

    if (ret != RKNN_SUCC || forced_soc >= 0 || !want || want == rknpu_platform_profile())
        return ret; /* the compatibility check names both SoCs if they differ */
    if (contexts_alive)
        return RKNN_SUCC;
    return switch_soc(want->id);
}

int rknpu_host_force_soc(rknpu_soc_id soc)
{
    if (soc == RKNPU_SOC_COUNT) {
        forced_soc = -1; /* follow each model again */
        return RKNN_SUCC;
    }
    if (!npu_soc_get(soc)) {
        HAL_LOG_ERR("rknpu_host_force_soc: unknown SoC id %d", (int)soc);
        return RKNN_ERR_PARAM_INVALID;
    }
    forced_soc = (int)soc;
    if (!rknpu_platform_get())
        return rknpu_board_autoinit();
    return soc == rknpu_platform_get()->soc ? RKNN_SUCC : switch_soc(soc);
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
