/*
 * fuzz_rknn_init.c - libFuzzer target for the whole rknn_init path: parser,
 * compatibility check, stream validation, weight copy, relocation, every
 * query, rknn_dup_context and rknn_destroy. See tests/fuzz/README.md.
 *
 * The platform is brought up with a static carve-out; the SoC profile is the
 * one the input names as its target platform (RK3588 if it names none we
 * know), so mutated RK3566 samples exercise the RK3566 rules. The input is
 * copied into a heap block of exactly its size. Contract violations abort()
 * so libFuzzer records them:
 *   - rknn_init returns something else than RKNN_SUCC or a documented init
 *     error, or fails without logging an error line;
 *   - a query returns something else than RKNN_SUCC / PARAM_INVALID /
 *     MODEL_INVALID, or a query that cannot fail on a loaded context fails;
 *   - an address-register word of a relocated stream (the context's and its
 *     duplicate's) is outside the context's weights and arena, or a non-zero
 *     PC_DATA_ADDR word is not a task start of the context's own stream;
 *   - the carve-out is not back to 0 used bytes after destroy / failure.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "npu_soc.h"
#include "rknn_api.h"
#include "rknn_ctx.h"
#include "rknn_model.h"
#include "rknpu_bm.h"
#include "test_ctx.h"

#define CARVE_BYTES    (8u << 20)
#define CARVE_NPU_ADDR 0x30000000u

static uint8_t carve[CARVE_BYTES] __attribute__((aligned(4096)));
static int current_soc = -1;
static unsigned long errors_logged;

/* Count error lines; print nothing (thousands of rejections per second). */
void rknpu_hook_log(rknpu_log_level level, const char *msg)
{
    (void)msg;
    if (level == RKNPU_LOG_ERROR)
        errors_logged++;
}

static void require(int cond)
{
    if (!cond)
        abort();
}

static void use_soc(rknpu_soc_id soc)
{
    rknpu_platform_config c;

    if ((int)soc == current_soc)
        return;
    memset(&c, 0, sizeof c);
    c.soc = soc;
    c.carveout = carve;
    c.carveout_size = sizeof carve;
    c.carveout_phys = CARVE_NPU_ADDR;
    require(rknpu_platform_init(&c) == RKNN_SUCC);
    current_soc = (int)soc;
}

/* The SoC the model says it is for, RK3588 otherwise. */
static rknpu_soc_id soc_for(const uint8_t *data, size_t size)
{
    rknn_model_view v;
    const npu_soc_profile *p;
    char name[32];

    if (rknn_model_parse(data, size, &v) != RKNN_SUCC)
        return RKNPU_SOC_RK3588;
    if (v.target_platform.len >= sizeof name)
        return RKNPU_SOC_RK3588;
    memcpy(name, v.target_platform.ptr, v.target_platform.len);
    name[v.target_platform.len] = 0;
    p = npu_soc_find_platform(name);
    return p ? p->id : RKNPU_SOC_RK3588;
}

static size_t used_bytes(void)
{
    rknpu_mem_stats st;

    require(rknpu_mem_get_stats(&st) == RKNN_SUCC);
    return st.used_bytes;
}

/* ---- the relocated-stream scan (registers typed in from format.md
 * format.md §4.3 / hardware.md, not taken from the loader) ------------------------------- */

static const uint16_t address_regs[] = {0x1070, 0x1110, 0x4020, 0x5018, 0x5020,
                                        0x502C, 0x5038, 0x6070, 0x701C};
static const uint16_t compute_targets[] = {0x0201, 0x0401, 0x0801, 0x1001, 0x2001, 0x4001, 0x8001};

static int in_list(const uint16_t *list, size_t n, uint16_t v)
{
    for (size_t i = 0; i < n; i++)
        if (list[i] == v)
            return 1;
    return 0;
}

static uint32_t npu_addr(const void *p)
{
    return CARVE_NPU_ADDR + (uint32_t)((const uint8_t *)p - carve);
}

static int inside(uint32_t v, uint32_t base, uint32_t size)
{
    return size && v >= base && v - base < size;
}

static int is_task_start(const rknn_ctx *ctx, uint32_t v, uint32_t stream)
{
    for (uint32_t t = 0; t < ctx->model.n_tasks; t++) {
        rknn_model_task_info ti;
        if (rknn_model_task(&ctx->model, t, &ti) == RKNN_SUCC &&
            ti.regcmd_addr < ctx->model.regcmd_size && v == stream + (uint32_t)ti.regcmd_addr)
            return 1;
    }
    return 0;
}

static void scan_stream(rknn_context h)
{
    const rknn_ctx *ctx = rknn_ctx_from_handle(h);
    uint32_t weights, arena, stream;

    require(ctx && ctx->relocated && ctx->regcmd && ctx->store &&
            (ctx->arena || !ctx->plan.arena_bytes));
    weights = ctx->store->dma ? npu_addr(ctx->store->dma) : 0;
    arena = ctx->arena ? npu_addr(ctx->arena) : 0;
    stream = npu_addr(ctx->regcmd);
    for (uint32_t i = 0; i < ctx->plan.regcmd_bytes / 8u; i++) {
        uint64_t w = rknn_fbs_le64(ctx->regcmd + (size_t)i * 8);
        uint16_t target = (uint16_t)(w >> 48), reg = (uint16_t)w;
        uint32_t v = (uint32_t)(w >> 16);
        if (!v)
            continue;
        if (target == 0x0101 && reg == 0x0010)
            require(is_task_start(ctx, v, stream));
        else if (in_list(compute_targets, 7, target) && in_list(address_regs, 9, reg))
            require(
                (ctx->store->dma && test_in_constants(ctx, v, weights)) ||
                test_in_io_homes(ctx, v, carve, CARVE_NPU_ADDR) ||
                inside(v, arena,
                       ctx->arena_owned ? rknn_plan_own_arena(&ctx->plan) : ctx->plan.arena_bytes));
    }
}

/* ---- queries ----------------------------------------------------------------- */

static int indexed_by_input(int cmd)
{
    return cmd == RKNN_QUERY_INPUT_ATTR || cmd == RKNN_QUERY_NATIVE_INPUT_ATTR ||
           cmd == RKNN_QUERY_NATIVE_NHWC_INPUT_ATTR || cmd == RKNN_QUERY_CURRENT_INPUT_ATTR ||
           cmd == RKNN_QUERY_CURRENT_NATIVE_INPUT_ATTR || cmd == RKNN_QUERY_INPUT_DYNAMIC_RANGE;
}

static void query_all(rknn_context h)
{
    rknn_input_output_num io;
    union {
        rknn_tensor_attr attr;
        uint8_t bytes[4096];
    } buf;

    require(rknn_query(h, RKNN_QUERY_IN_OUT_NUM, &io, sizeof io) == RKNN_SUCC);
    for (int cmd = 0; cmd <= RKNN_QUERY_CMD_MAX; cmd++) {
        uint32_t count = indexed_by_input(cmd) ? io.n_input : io.n_output;
        for (uint32_t i = 0; i <= count && i <= RKNN_MODEL_MAX_IO; i++) {
            unsigned long before = errors_logged;
            int ret;
            memset(&buf, 0, sizeof buf);
            buf.attr.index = i;
            ret = rknn_query(h, (rknn_query_cmd)cmd, &buf, sizeof buf);
            /* CTX_INVALID: the current native attributes of a static
             * model, refused as Rockchip's runtime refuses them */
            require(
                ret == RKNN_SUCC || ret == RKNN_ERR_PARAM_INVALID ||
                ret == RKNN_ERR_MODEL_INVALID ||
                (ret == RKNN_ERR_CTX_INVALID && (cmd == RKNN_QUERY_CURRENT_NATIVE_INPUT_ATTR ||
                                                 cmd == RKNN_QUERY_CURRENT_NATIVE_OUTPUT_ATTR)));
            require(ret == RKNN_SUCC || errors_logged > before);
            if (cmd == RKNN_QUERY_IN_OUT_NUM || cmd == RKNN_QUERY_SDK_VERSION ||
                cmd == RKNN_QUERY_MEM_SIZE || cmd == RKNN_QUERY_CUSTOM_STRING ||
                cmd == RKNN_QUERY_PERF_RUN)
                require(ret == RKNN_SUCC);
            if (ret == RKNN_SUCC &&
                (cmd == RKNN_QUERY_INPUT_ATTR || cmd == RKNN_QUERY_OUTPUT_ATTR ||
                 cmd == RKNN_QUERY_NATIVE_INPUT_ATTR || cmd == RKNN_QUERY_NATIVE_OUTPUT_ATTR))
                require(i < count && buf.attr.index == i && buf.attr.n_dims <= RKNN_MAX_DIMS &&
                        memchr(buf.attr.name, 0, sizeof buf.attr.name) != NULL);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rknn_context h = 0, dup = 0;
    unsigned long before;
    uint8_t *copy;
    int ret;

    /* size 0 means "model is a file path" to rknn_init: not a buffer case */
    if (size == 0 || size > UINT32_MAX)
        return 0;
    copy = malloc(size);
    if (!copy)
        return 0;
    memcpy(copy, data, size);
    use_soc(soc_for(copy, size));
    before = errors_logged;
    ret = rknn_init(&h, copy, (uint32_t)size, 0, NULL);
    require(ret == RKNN_SUCC || ret == RKNN_ERR_MODEL_INVALID ||
            ret == RKNN_ERR_TARGET_PLATFORM_UNMATCH || ret == RKNN_ERR_MALLOC_FAIL ||
            ret == RKNN_ERR_PARAM_INVALID);
    if (ret == RKNN_SUCC) {
        query_all(h);
        scan_stream(h);
        ret = rknn_dup_context(&h, &dup);
        require(ret == RKNN_SUCC || ret == RKNN_ERR_MALLOC_FAIL);
        if (ret == RKNN_SUCC) {
            scan_stream(dup);
            require(rknn_destroy(dup) == RKNN_SUCC);
        }
        require(rknn_destroy(h) == RKNN_SUCC);
    } else {
        require(errors_logged > before && h == 0);
    }
    require(used_bytes() == 0);
    free(copy);
    return 0;
}
