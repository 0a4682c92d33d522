/*
 * test_soc.h - helpers for tests that run models on the board's virtual NPU:
 * switch the SoC profile (platform and virtual NPU together) and load a
 * sample model into a context. Needs board_init() first.
 */
#ifndef TEST_SOC_H
#define TEST_SOC_H

#include <string.h>

#include "board_common.h"
#include "npu_soc.h"
#include "rknn_api.h"
#include "rknpu_bm.h"
#include "test_files.h"
#include "test_util.h"

static inline void test_switch_soc(rknpu_soc_id soc)
{
    rknpu_platform_config c = *rknpu_platform_get();

    c.soc = soc;
    memset(c.npu_base, 0, sizeof c.npu_base); /* the SoC's own addresses */
    CHECK(rknpu_platform_init(&c) == RKNN_SUCC);
    CHECK(board_vnpu_attach(rknpu_platform_get(), npu_soc_get(soc)) == RKNN_SUCC);
}

/* rknn_init on dir/file read into buf; 0 (and a failed check) on error.
 * Then, as a vendor-style client that frees its model buffer after init and
 * reuses the memory, buf is overwritten (unless the model is zero copy):
 * everything after this must work from the runtime's own copy. */
static inline rknn_context test_load_model(const char *dir, const char *file, uint8_t *buf,
                                           size_t cap, uint32_t flags)
{
    char path[512];
    size_t n = test_read_file(test_path(path, sizeof path, dir, file), buf, cap);
    rknn_context ctx = 0;

    CHECK(n > 0);
    CHECK(rknn_init(&ctx, buf, (uint32_t)n, flags, NULL) == RKNN_SUCC);
    if (!(flags & RKNN_FLAG_MODEL_BUFFER_ZERO_COPY))
        memset(buf, 0xA5, n);
    return ctx;
}

#endif
