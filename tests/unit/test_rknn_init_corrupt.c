/*
 * test_rknn_init_corrupt - the whole rknn_init path on broken models.
 *
 *   test_rknn_init_corrupt MODELS_DIR   (fails when the directory is missing)
 *
 * For every v6 sample, on its own SoC profile, deterministically:
 *   - truncations and container header / FlatBuffer offset corruptions;
 *   - targeted corruptions of what the loader validates, located through the
 *     parser's accessors (file offset = view.payload_offset + position):
 *     relocation entries, tensors they name, task records, task counts per
 *     core slot, chain links and register words of the stream, and the
 *     compatibility fields. Each one must be refused with the specific code;
 *   - a few thousand seeded random mutations, biased towards the stream, the
 *     task records and the relocation table.
 * Each case runs rknn_init on a heap copy of exactly its length (so ASan sees
 * any read past the end), then every rknn_query command for every
 * input/output index, rknn_dup_context, and rknn_destroy. Asserted:
 *   - rknn_init returns RKNN_SUCC or a documented init error (MODEL_INVALID,
 *     TARGET_PLATFORM_UNMATCH, MALLOC_FAIL, PARAM_INVALID); every failure of
 *     init or query logged at least one error line;
 *   - the carve-out is back to 0 used bytes after destroy or failure;
 *   - after a success, an independent scan of each relocated stream: every
 *     address-register word on a compute target is 0 or inside the context's
 *     weights or arena, every non-zero PC_DATA_ADDR word is the DMA address of
 *     a task start in the context's own stream;
 *   - rknpu_model_mem_requirements agrees with rknn_init.
 * The register numbers of the scan are typed in from hardware.md / format.md
 * format.md §4.3, not taken from the loader.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rknn_api.h"
#include "rknn_ctx.h"
#include "rknn_model.h"
#include "rknpu_bm.h"
#include "test_ctx.h"
#include "test_files.h"

#define CARVE_BYTES            (4u << 20)
#define CARVE_NPU_ADDR         0x30000000u
#define MODEL_MAX              (256u * 1024u)
#define RANDOM_CASES_PER_MODEL 2000u
#define MAX_PRINTED_FAILURES   40u

static uint8_t carve[CARVE_BYTES] __attribute__((aligned(4096)));
static uint8_t original[MODEL_MAX];
static uint8_t work[MODEL_MAX];
static const char *models_dir;

typedef struct {
    const char *file;
    rknpu_soc_id soc;
} sample;

static const sample samples[] = {
    {"rk3588_multiple_input_demo.v6.rknn", RKNPU_SOC_RK3588},
    {"rk3566_multiple_input_demo.v6.rknn", RKNPU_SOC_RK3566},
    {"rk3588_dual_residual_custom.v6.rknn", RKNPU_SOC_RK3588},
    {"rk3566_dual_residual_custom.v6.rknn", RKNPU_SOC_RK3566},
};

/* ---- reporting -------------------------------------------------------------- */

static unsigned long cases, accepted, failures;
static unsigned long targeted, random_cases;
static char label[160];

static void fail(const char *fmt, ...)
{
    va_list ap;

    failures++;
    if (failures > MAX_PRINTED_FAILURES)
        return;
    printf("FAIL [%s]: ", label);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
}

#define EXPECT(cond, ...)                                                                          \
    do {                                                                                           \
        if (!(cond))                                                                               \
            fail(__VA_ARGS__);                                                                     \
    } while (0)

static void set_label(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(label, sizeof label, fmt, ap);
    va_end(ap);
}

/* Expected error lines are counted, not printed. */
static unsigned long errors_logged;
void rknpu_hook_log(rknpu_log_level level, const char *msg)
{
    (void)msg;
    if (level == RKNPU_LOG_ERROR)
        errors_logged++;
}

/* ---- platform and memory ---------------------------------------------------- */

static int platform(rknpu_soc_id soc)
{
    rknpu_platform_config c;

    memset(&c, 0, sizeof c);
    c.soc = soc;
    c.carveout = carve;
    c.carveout_size = sizeof carve;
    c.carveout_phys = CARVE_NPU_ADDR;
    return rknpu_platform_init(&c);
}

static size_t used_bytes(void)
{
    rknpu_mem_stats st;

    if (rknpu_mem_get_stats(&st) != RKNN_SUCC)
        return (size_t)-1;
    return st.used_bytes;
}

static uint32_t npu_addr(const void *p)
{
    return CARVE_NPU_ADDR + (uint32_t)((const uint8_t *)p - carve);
}

/* ---- little-endian pokes ---------------------------------------------------- */

static uint32_t get32(const uint8_t *b, size_t off)
{
    return (uint32_t)b[off] | (uint32_t)b[off + 1] << 8 | (uint32_t)b[off + 2] << 16 |
           (uint32_t)b[off + 3] << 24;
}

static void put32(uint8_t *b, size_t off, uint32_t v)
{
    for (unsigned i = 0; i < 4; i++)
        b[off + i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get64(const uint8_t *b, size_t off)
{
    return (uint64_t)get32(b, off) | (uint64_t)get32(b, off + 4) << 32;
}

static void put64(uint8_t *b, size_t off, uint64_t v)
{
    put32(b, off, (uint32_t)v);
    put32(b, off + 4, (uint32_t)(v >> 32));
}

static uint64_t make_word(uint16_t target, uint16_t reg, uint32_t value)
{
    return (uint64_t)target << 48 | (uint64_t)value << 16 | reg;
}

static uint16_t word_target(uint64_t w)
{
    return (uint16_t)(w >> 48);
}
static uint16_t word_reg(uint64_t w)
{
    return (uint16_t)w;
}
static uint32_t word_value(uint64_t w)
{
    return (uint32_t)(w >> 16);
}

/* ---- the independent scan of a relocated stream ---------------------------- */

/* Registers holding DMA addresses (format.md §4.3, hardware.md): CNA feature
 * and weight (DCOMP) addresses, DPU destination, DPU RDMA source/BS/BN/EW,
 * PPU destination and PPU RDMA source. */
static const uint16_t address_regs[] = {0x1070, 0x1110, 0x4020, 0x5018, 0x5020,
                                        0x502C, 0x5038, 0x6070, 0x701C};
/* Targets that write a compute block (CNA, CMAC, CORE, DPU, DPU RDMA, PPU, PPU RDMA). */
static const uint16_t compute_targets[] = {0x0201, 0x0401, 0x0801, 0x1001, 0x2001, 0x4001, 0x8001};
#define TARGET_PC          0x0101u
#define REG_PC_DATA_ADDR   0x0010u
#define REG_PC_DATA_AMOUNT 0x0014u

static int in_list(const uint16_t *list, size_t n, uint16_t v)
{
    for (size_t i = 0; i < n; i++)
        if (list[i] == v)
            return 1;
    return 0;
}

static int is_address_reg(uint16_t reg)
{
    return in_list(address_regs, sizeof address_regs / sizeof address_regs[0], reg);
}

static int is_compute_target(uint16_t t)
{
    return in_list(compute_targets, sizeof compute_targets / sizeof compute_targets[0], t);
}

static int inside(uint32_t v, uint32_t base, uint32_t size)
{
    return size && v >= base && v - base < size;
}

static void scan_stream(rknn_context h)
{
    const rknn_ctx *ctx = rknn_ctx_from_handle(h);
    uint32_t weights, weights_bytes, arena, stream, n_words, bad_addr = 0, bad_link = 0;

    if (!ctx) {
        fail("no context behind a handle rknn_init returned");
        return;
    }
    EXPECT(ctx->relocated, "rknn_init succeeded without relocating the stream");
    EXPECT(ctx->regcmd && ctx->store && (ctx->arena || !ctx->plan.arena_bytes),
           "buffers missing after init");
    if (!ctx->regcmd || !ctx->store)
        return;
    weights = ctx->store->dma ? npu_addr(ctx->store->dma) : 0;
    /* constants in place in the runtime's copy of the file, or packed */
    weights_bytes = ctx->store->in_place ? ctx->store->image_size : ctx->plan.weight_bytes;
    arena = ctx->arena ? npu_addr(ctx->arena) : 0;
    stream = npu_addr(ctx->regcmd);
    /* The whole DMA block the PC may fetch from, padding included (none
     * after a stream relocated where it lies: the model's own bytes). */
    n_words = (ctx->regcmd_in_place ? ctx->model.regcmd_size : ctx->plan.regcmd_bytes) / 8u;
    for (uint32_t i = 0; i < n_words; i++) {
        uint64_t w = get64(ctx->regcmd, (size_t)i * 8);
        uint32_t v = word_value(w);
        if (word_target(w) == TARGET_PC && word_reg(w) == REG_PC_DATA_ADDR && v) {
            int ok = 0;
            for (uint32_t t = 0; t < ctx->model.n_tasks && !ok; t++) {
                rknn_model_task_info ti;
                if (rknn_model_task(&ctx->model, t, &ti) == RKNN_SUCC &&
                    ti.regcmd_addr < ctx->model.regcmd_size)
                    ok = v == stream + (uint32_t)ti.regcmd_addr;
            }
            if (!ok && bad_link++ == 0)
                fail("stream word %u: PC_DATA_ADDR 0x%08x is not a task start of this "
                     "context's stream (at 0x%08x)",
                     i, v, stream);
        } else if (is_compute_target(word_target(w)) && is_address_reg(word_reg(w)) && v) {
            int ok =
                (ctx->store->dma && test_in_constants(ctx, v, weights)) ||
                test_in_io_homes(ctx, v, carve, CARVE_NPU_ADDR) ||
                inside(v, arena,
                       ctx->arena_owned ? rknn_plan_own_arena(&ctx->plan) : ctx->plan.arena_bytes);
            if (!ok && bad_addr++ == 0)
                fail("stream word %u: target 0x%04x register 0x%04x = 0x%08x is outside "
                     "the constants [0x%08x +%u] and the arena [0x%08x +%u]",
                     i, word_target(w), word_reg(w), v, weights, weights_bytes, arena,
                     ctx->plan.arena_bytes);
        }
    }
}

/* ---- queries ----------------------------------------------------------------- */

static int is_io_attr_query(int cmd)
{
    return cmd == RKNN_QUERY_INPUT_ATTR || cmd == RKNN_QUERY_OUTPUT_ATTR ||
           cmd == RKNN_QUERY_NATIVE_INPUT_ATTR || cmd == RKNN_QUERY_NATIVE_OUTPUT_ATTR ||
           cmd == RKNN_QUERY_NATIVE_NHWC_INPUT_ATTR || cmd == RKNN_QUERY_NATIVE_NHWC_OUTPUT_ATTR;
}

static int is_input_query(int cmd)
{
    return cmd == RKNN_QUERY_INPUT_ATTR || cmd == RKNN_QUERY_NATIVE_INPUT_ATTR ||
           cmd == RKNN_QUERY_NATIVE_NHWC_INPUT_ATTR || cmd == RKNN_QUERY_CURRENT_INPUT_ATTR ||
           cmd == RKNN_QUERY_CURRENT_NATIVE_INPUT_ATTR || cmd == RKNN_QUERY_INPUT_DYNAMIC_RANGE;
}

/* Queries that cannot fail on a loaded context with a large enough buffer. */
static int must_succeed(int cmd)
{
    return cmd == RKNN_QUERY_IN_OUT_NUM || cmd == RKNN_QUERY_PERF_RUN ||
           cmd == RKNN_QUERY_SDK_VERSION || cmd == RKNN_QUERY_MEM_SIZE ||
           cmd == RKNN_QUERY_CUSTOM_STRING;
}

static void check_attr(const rknn_tensor_attr *a, uint32_t index)
{
    EXPECT(a->index == index, "attr index %u, asked %u", a->index, index);
    EXPECT(memchr(a->name, 0, sizeof a->name) != NULL, "attr name not terminated");
    EXPECT(a->n_dims <= RKNN_MAX_DIMS, "attr n_dims %u", a->n_dims);
}

static void query_one(rknn_context h, int cmd, uint32_t index, uint32_t count)
{
    union {
        rknn_tensor_attr attr;
        rknn_input_range range;
        rknn_mem_size mem;
        rknn_custom_string custom;
        rknn_sdk_version version;
        rknn_input_output_num io;
        rknn_perf_detail detail;
        rknn_perf_run run;
        uint8_t bytes[4096];
    } buf;
    unsigned long before = errors_logged;
    int ret;

    memset(&buf, 0, sizeof buf);
    buf.attr.index = index; /* the first field of every indexed struct */
    ret = rknn_query(h, (rknn_query_cmd)cmd, &buf, sizeof buf);
    /* CTX_INVALID only for the current native attributes (the vendor's
     * answer on a static model, checked below) */
    EXPECT(ret == RKNN_SUCC || ret == RKNN_ERR_PARAM_INVALID || ret == RKNN_ERR_MODEL_INVALID ||
               (ret == RKNN_ERR_CTX_INVALID && (cmd == RKNN_QUERY_CURRENT_NATIVE_INPUT_ATTR ||
                                                cmd == RKNN_QUERY_CURRENT_NATIVE_OUTPUT_ATTR)),
           "rknn_query(%d, index %u) returned %d", cmd, index, ret);
    EXPECT(ret == RKNN_SUCC || errors_logged > before,
           "rknn_query(%d, index %u) failed (%d) "
           "without an error line",
           cmd, index, ret);
    if (must_succeed(cmd))
        EXPECT(ret == RKNN_SUCC, "rknn_query(%d) returned %d", cmd, ret);
    /* static models: refused as Rockchip's runtime refuses them */
    if (cmd == RKNN_QUERY_CURRENT_INPUT_ATTR || cmd == RKNN_QUERY_CURRENT_OUTPUT_ATTR ||
        cmd == RKNN_QUERY_INPUT_DYNAMIC_RANGE)
        EXPECT(ret == RKNN_ERR_MODEL_INVALID, "rknn_query(%d) returned %d", cmd, ret);
    if (cmd == RKNN_QUERY_CURRENT_NATIVE_INPUT_ATTR || cmd == RKNN_QUERY_CURRENT_NATIVE_OUTPUT_ATTR)
        EXPECT(ret == RKNN_ERR_CTX_INVALID, "rknn_query(%d) returned %d", cmd, ret);
    if (is_io_attr_query(cmd) && index >= count)
        EXPECT(ret == RKNN_ERR_PARAM_INVALID, "rknn_query(%d) accepted index %u of %u", cmd, index,
               count);
    if (ret != RKNN_SUCC)
        return;
    if (is_io_attr_query(cmd))
        check_attr(&buf.attr, index);
    if (cmd == RKNN_QUERY_CUSTOM_STRING)
        EXPECT(memchr(buf.custom.string, 0, sizeof buf.custom.string) != NULL,
               "custom string not terminated");
    if (cmd == RKNN_QUERY_SDK_VERSION)
        EXPECT(memchr(buf.version.api_version, 0, sizeof buf.version.api_version) &&
                   memchr(buf.version.drv_version, 0, sizeof buf.version.drv_version),
               "version strings not terminated");
}

static void query_all(rknn_context h)
{
    rknn_input_output_num io;

    if (rknn_query(h, RKNN_QUERY_IN_OUT_NUM, &io, sizeof io) != RKNN_SUCC) {
        fail("RKNN_QUERY_IN_OUT_NUM failed on a loaded context");
        return;
    }
    for (int cmd = 0; cmd <= RKNN_QUERY_CMD_MAX; cmd++) {
        uint32_t count = is_input_query(cmd) ? io.n_input : io.n_output;
        /* every valid index and the first invalid one */
        for (uint32_t i = 0; i <= count && i <= RKNN_MODEL_MAX_IO; i++)
            query_one(h, cmd, i, count);
    }
}

/* ---- one case ------------------------------------------------------------------ */

enum expectation {
    EXPECT_ANY,     /* any documented outcome */
    EXPECT_SUCCESS, /* the unmodified sample */
    EXPECT_REFUSED, /* any documented init error */
    EXPECT_INVALID, /* RKNN_ERR_MODEL_INVALID */
    EXPECT_UNMATCH, /* RKNN_ERR_TARGET_PLATFORM_UNMATCH */
};

static const char *expectation_name(enum expectation e)
{
    switch (e) {
    case EXPECT_SUCCESS: return "RKNN_SUCC";
    case EXPECT_REFUSED: return "an init error";
    case EXPECT_INVALID: return "RKNN_ERR_MODEL_INVALID";
    case EXPECT_UNMATCH: return "RKNN_ERR_TARGET_PLATFORM_UNMATCH";
    default: return "any";
    }
}

static void check_success(rknn_context h, const uint8_t *copy, size_t len)
{
    const rknn_ctx *ctx = rknn_ctx_from_handle(h);
    rknpu_model_mem need;
    rknn_context dup = 0;
    int ret;

    query_all(h);
    scan_stream(h);
    /* The pre-init size query must accept what init accepted, with the same plan. */
    ret = rknpu_model_mem_requirements(copy, len, &need);
    EXPECT(ret == RKNN_SUCC, "rknpu_model_mem_requirements returned %d after init succeeded", ret);
    if (ret == RKNN_SUCC && ctx)
        EXPECT(need.weight_bytes == ctx->plan.weight_bytes &&
                   need.regcmd_bytes == ctx->plan.regcmd_bytes &&
                   need.internal_bytes == ctx->plan.arena_bytes,
               "mem requirements %u/%u/%u, context plan %u/%u/%u", need.weight_bytes,
               need.regcmd_bytes, need.internal_bytes, ctx->plan.weight_bytes,
               ctx->plan.regcmd_bytes, ctx->plan.arena_bytes);
    ret = rknn_dup_context(&h, &dup);
    EXPECT(ret == RKNN_SUCC || ret == RKNN_ERR_MALLOC_FAIL, "rknn_dup_context returned %d", ret);
    if (ret == RKNN_SUCC) {
        scan_stream(dup);
        EXPECT(rknn_destroy(dup) == RKNN_SUCC, "destroying the duplicate failed");
    }
}

static int run_case(const uint8_t *data, size_t len, enum expectation expect)
{
    uint8_t *copy = malloc(len ? len : 1);
    unsigned long before = errors_logged;
    rknn_context h = 0;
    size_t used;
    int ret;

    if (!copy) {
        fail("out of host memory");
        return RKNN_ERR_MALLOC_FAIL;
    }
    memcpy(copy, data, len);
    cases++;
    ret = rknn_init(&h, copy, (uint32_t)len, 0, NULL);
    EXPECT(ret == RKNN_SUCC || ret == RKNN_ERR_MODEL_INVALID ||
               ret == RKNN_ERR_TARGET_PLATFORM_UNMATCH || ret == RKNN_ERR_MALLOC_FAIL ||
               ret == RKNN_ERR_PARAM_INVALID,
           "rknn_init returned %d, not a documented init error", ret);
    if (ret == RKNN_SUCC) {
        accepted++;
        check_success(h, copy, len);
        EXPECT(rknn_destroy(h) == RKNN_SUCC, "rknn_destroy failed");
    } else {
        EXPECT(errors_logged > before, "rknn_init failed (%d) without an error line", ret);
        EXPECT(h == 0, "rknn_init failed but set the handle");
    }
    used = used_bytes();
    EXPECT(used == 0, "%zu carve-out bytes still used after %s", used,
           ret == RKNN_SUCC ? "rknn_destroy" : "the failed init");
    if (expect == EXPECT_SUCCESS)
        EXPECT(ret == RKNN_SUCC, "unmodified sample: rknn_init returned %d", ret);
    else if (expect == EXPECT_REFUSED)
        EXPECT(ret != RKNN_SUCC, "accepted, want %s", expectation_name(expect));
    else if (expect == EXPECT_INVALID)
        EXPECT(ret == RKNN_ERR_MODEL_INVALID, "returned %d, want %s", ret,
               expectation_name(expect));
    else if (expect == EXPECT_UNMATCH)
        EXPECT(ret == RKNN_ERR_TARGET_PLATFORM_UNMATCH, "returned %d, want %s", ret,
               expectation_name(expect));
    free(copy);
    return ret;
}

/* ---- locating things through the parser ------------------------------------ */

static rknn_model_view view; /* of the unmodified sample */
static size_t model_len;

static size_t payload_pos(uint32_t pos)
{
    return view.payload_offset + pos;
}

static size_t file_pos(const void *p)
{
    return (size_t)((const uint8_t *)p - view.file);
}

static size_t stream_off(uint32_t word)
{
    return file_pos(view.regcmd) + (size_t)word * 8;
}

static uint64_t stream_word(uint32_t word)
{
    return get64(original, stream_off(word));
}

static size_t task_off(uint32_t t)
{
    return file_pos(view.task_data) + (size_t)t * RKNN_MODEL_TASK_RECORD_SIZE;
}

enum { TASK_ENABLE = 8, TASK_INT_MASK = 12, TASK_AMOUNT = 24, TASK_ADDR = 32 };

static rknn_model_task_info task_of(uint32_t t)
{
    rknn_model_task_info ti;

    memset(&ti, 0, sizeof ti);
    rknn_model_task(&view, t, &ti);
    return ti;
}

static uint32_t tail_word(uint32_t t)
{
    rknn_model_task_info ti = task_of(t);

    return (uint32_t)(ti.regcmd_addr / 8) + ti.regcfg_amount;
}

/* Whether record t + 1 is in t's core group. */
static int next_in_group(uint32_t t)
{
    for (uint32_t s = 0; s < view.n_core_slots; s++)
        if (t >= view.groups[s].first && t < view.groups[s].first + view.groups[s].count)
            return t + 1 < view.groups[s].first + view.groups[s].count;
    return 0;
}

/* Whether t's chain must go on to t + 1: the same node's next record
 * (format.md §4.2: a node's records on a core are one chain). */
static int has_next_in_node(uint32_t t)
{
    return next_in_group(t) && task_of(t + 1).op_idx == task_of(t).op_idx;
}

/* Position of a scalar field of table t (slot, size), or 0 if not stored. */
static size_t field_off(const rknn_fbs_table *t, uint32_t slot, uint32_t size)
{
    uint32_t pos;

    if (rknn_fbs_field_pos(t, slot, size, &pos) != RKNN_FBS_OK)
        return 0;
    return payload_pos(pos);
}

/* ---- mutation helpers: each runs one case on a fresh copy --------------------- */

static void fresh(void)
{
    memcpy(work, original, model_len);
}

static void try32(size_t off, uint32_t value, enum expectation e, const char *what)
{
    fresh();
    put32(work, off, value);
    set_label("%s (u32 @%zu = 0x%x)", what, off, value);
    targeted++;
    run_case(work, model_len, e);
}

static void try64(size_t off, uint64_t value, enum expectation e, const char *what)
{
    fresh();
    put64(work, off, value);
    set_label("%s (u64 @%zu = 0x%llx)", what, off, (unsigned long long)value);
    targeted++;
    run_case(work, model_len, e);
}

static void try_word(uint32_t word, uint64_t w, enum expectation e, const char *what)
{
    fresh();
    put64(work, stream_off(word), w);
    set_label("%s (stream word %u = %016llx, was %016llx)", what, word, (unsigned long long)w,
              (unsigned long long)stream_word(word));
    targeted++;
    run_case(work, model_len, e);
}

/* ---- targeted corruptions ------------------------------------------------------ */

static void corrupt_truncations(void)
{
    for (size_t len = 1; len < model_len; len += len < 256 ? 1 : 97) {
        set_label("truncated to %zu of %zu bytes", len, model_len);
        targeted++;
        run_case(original, len, EXPECT_INVALID);
    }
    set_label("truncated by one byte");
    run_case(original, model_len - 1, EXPECT_INVALID);
    /* Bytes after the JSON are allowed (trailing_bytes). */
    fresh();
    memset(work + model_len, 0xA5, 64);
    set_label("64 bytes appended");
    run_case(work, model_len + 64, EXPECT_SUCCESS);
}

static void corrupt_header(void)
{
    size_t json_len_off = view.payload_offset + view.payload_size;

    try32(0, 0x4E4E4B58u, EXPECT_INVALID, "magic");
    for (uint64_t v = 0; v < 10; v++)
        if (v != RKNN_MODEL_CONTAINER_VERSION)
            try64(8, v, EXPECT_INVALID, "container version");
    try64(8, 1ull << 32 | 6u, EXPECT_INVALID, "container version high word");
    try64(16, 0, EXPECT_INVALID, "payload size 0");
    try64(16, view.payload_size + 8, EXPECT_INVALID, "payload size +8");
    try64(16, model_len, EXPECT_INVALID, "payload size = file size");
    try64(16, UINT64_MAX, EXPECT_INVALID, "payload size ~0");
    try64(16, 1ull << 32, EXPECT_INVALID, "payload size 4 GiB");
    try64(json_len_off, view.json_size + 1, EXPECT_INVALID, "JSON length +1");
    try64(json_len_off, UINT64_MAX, EXPECT_INVALID, "JSON length ~0");
    /* The payload is shorter than the header says: the JSON length moves. */
    try64(16, view.payload_size - 8, EXPECT_ANY, "payload size -8");
}

static void corrupt_flatbuffer_offsets(void)
{
    size_t root = payload_pos(0);
    uint32_t root_value = get32(original, root);
    size_t table = payload_pos(root_value);
    const rknn_fbs_vector *vecs[] = {&view.fbs.tensors, &view.fbs.nodes, &view.fbs.relocs,
                                     &view.fbs.blobs};
    static const char *const names[] = {"tensors", "nodes", "relocs", "blobs"};

    try32(root, (uint32_t)view.payload_size, EXPECT_INVALID, "root offset = payload size");
    try32(root, 0xFFFFFFFCu, EXPECT_INVALID, "root offset ~0");
    try32(root, root_value + 1, EXPECT_INVALID, "root offset misaligned");
    try32(root, 0, EXPECT_INVALID, "root offset 0");
    /* soffset from the root table to its vtable */
    try32(table, 0x7FFFFFF0u, EXPECT_INVALID, "root vtable offset far forward");
    try32(table, 0x80000010u, EXPECT_INVALID, "root vtable offset far back");
    for (size_t k = 0; k < sizeof vecs / sizeof vecs[0]; k++) {
        const rknn_fbs_vector *v = vecs[k];
        char what[64];
        if (v->count == 0)
            continue;
        snprintf(what, sizeof what, "%s vector length huge", names[k]);
        try32(payload_pos(v->pos - 4), 0x3FFFFFFFu, EXPECT_INVALID, what);
        snprintf(what, sizeof what, "%s vector length +1", names[k]);
        try32(payload_pos(v->pos - 4), v->count + 1, EXPECT_ANY, what);
        for (uint32_t i = 0; i<v->count; i += v->count> 4 ? v->count / 4 : 1) {
            size_t elem = payload_pos(v->pos + 4 * i);
            snprintf(what, sizeof what, "%s[%u] offset out of range", names[k], i);
            try32(elem, (uint32_t)view.payload_size, EXPECT_INVALID, what);
            snprintf(what, sizeof what, "%s[%u] offset misaligned", names[k], i);
            try32(elem, get32(original, elem) + 2, EXPECT_INVALID, what);
        }
    }
}

/* A body word of a task that is not an address register (for pointing
 * relocations at). */
static uint32_t plain_body_word(void)
{
    for (uint32_t t = 0; t < view.n_tasks; t++) {
        rknn_model_task_info ti = task_of(t);
        for (uint32_t i = 0; i < ti.regcfg_amount; i++) {
            uint32_t word = (uint32_t)(ti.regcmd_addr / 8) + i;
            uint64_t w = stream_word(word);
            if (is_compute_target(word_target(w)) && !is_address_reg(word_reg(w)))
                return word;
        }
    }
    return 0;
}

/* Bytes a relocation into tensor ti may start in: its blob for constants,
 * its size for activations (format.md §4.3). */
static uint32_t tensor_extent(uint32_t ti)
{
    rknn_model_tensor_info t;

    if (rknn_model_tensor(&view, ti, &t) != RKNN_SUCC)
        return 0;
    if (t.kind == RKNN_MODEL_KIND_CONST || t.kind == RKNN_MODEL_KIND_GENERATED_CONST)
        return t.data_size;
    return t.size;
}

static void corrupt_reloc_entry(const rknn_model_reloc_info *ri, uint32_t r, uint32_t e)
{
    size_t entry = payload_pos(ri->entries.pos + 8 * e);
    uint32_t addend = get32(original, entry), word = get32(original, entry + 4);
    uint32_t extent = tensor_extent(ri->tensor_index);
    uint64_t w = stream_word(word);
    uint32_t tail = tail_word(0);
    char what[96];

    snprintf(what, sizeof what, "reloc %u.%u word -> non-address register", r, e);
    try32(entry + 4, plain_body_word(), EXPECT_INVALID, what);
    snprintf(what, sizeof what, "reloc %u.%u word -> PC tail word", r, e);
    try32(entry + 4, tail, EXPECT_INVALID, what);
    snprintf(what, sizeof what, "reloc %u.%u word -> one past the stream", r, e);
    try32(entry + 4, view.n_regcmd_words, EXPECT_INVALID, what);
    snprintf(what, sizeof what, "reloc %u.%u word -> ~0", r, e);
    try32(entry + 4, 0xFFFFFFFFu, EXPECT_INVALID, what);
    snprintf(what, sizeof what, "reloc %u.%u addend != stream value", r, e);
    try32(entry, addend + 64 < extent ? addend + 64 : addend ^ 0x40u, EXPECT_INVALID, what);
    snprintf(what, sizeof what, "reloc %u.%u addend ~0", r, e);
    try32(entry, 0xFFFFFFFFu, EXPECT_INVALID, what);
    /* Addend and stream value agree but point past the end of the tensor. */
    for (int k = 0; k < 2; k++) {
        uint32_t beyond = k == 0 ? extent : extent + 0x10000u;
        fresh();
        put32(work, entry, beyond);
        put64(work, stream_off(word), make_word(word_target(w), word_reg(w), beyond));
        set_label("reloc %u.%u addend = value = %u, tensor %u has %u bytes", r, e, beyond,
                  ri->tensor_index, extent);
        targeted++;
        run_case(work, model_len, EXPECT_INVALID);
    }
}

static void corrupt_reloc_tensor(const rknn_model_reloc_info *ri, uint32_t r, uint32_t regcmd_blob,
                                 uint32_t task_blob)
{
    rknn_fbs_table t;
    rknn_model_tensor_info info;
    size_t kind, size, offset, blob;
    char what[96];

    if (rknn_fbs_vec_table(&view.fbs.tensors, ri->tensor_index, &t) != RKNN_FBS_OK ||
        rknn_model_tensor(&view, ri->tensor_index, &info) != RKNN_SUCC)
        return;
    kind = field_off(&t, 2, 1);
    size = field_off(&t, 12, 4);
    offset = field_off(&t, 13, 4);
    blob = field_off(&t, 18, 4);
    if (kind) {
        snprintf(what, sizeof what, "reloc %u: tensor kind -> null", r);
        fresh();
        work[kind] = RKNN_MODEL_KIND_NULL;
        set_label("%s", what);
        targeted++;
        run_case(work, model_len, EXPECT_INVALID);
        fresh();
        work[kind] = RKNN_MODEL_KIND_REGLIST_OLD; /* a kind with no memory */
        set_label("reloc %u: tensor kind -> old register list", r);
        targeted++;
        run_case(work, model_len, EXPECT_INVALID);
    }
    if (info.kind == RKNN_MODEL_KIND_CONST || info.kind == RKNN_MODEL_KIND_HELPER_CONST ||
        info.kind == RKNN_MODEL_KIND_GENERATED_CONST || info.kind == RKNN_MODEL_KIND_LUT) {
        if (!blob)
            return;
        /* The stream and task blobs are not weights: a constant living
         * there has no address in the weights region. */
        snprintf(what, sizeof what, "reloc %u: constant's blob -> the regcmd blob", r);
        try32(blob, regcmd_blob, EXPECT_INVALID, what);
        snprintf(what, sizeof what, "reloc %u: constant's blob -> the task blob", r);
        try32(blob, task_blob, EXPECT_INVALID, what);
        snprintf(what, sizeof what, "reloc %u: constant's blob -> empty blob 0", r);
        try32(blob, 0, EXPECT_INVALID, what);
        snprintf(what, sizeof what, "reloc %u: constant's blob out of range", r);
        try32(blob, view.n_blobs, EXPECT_INVALID, what);
    } else {
        if (size) {
            snprintf(what, sizeof what, "reloc %u: activation size 0", r);
            try32(size, 0, EXPECT_INVALID, what);
        }
        if (offset) {
            snprintf(what, sizeof what, "reloc %u: activation arena offset near 4 GiB", r);
            try32(offset, 0xFFFFFF00u, EXPECT_INVALID, what);
        }
    }
}

static void corrupt_relocations(void)
{
    rknn_model_tensor_info t;
    uint32_t regcmd_blob = 0, task_blob = 0;

    if (rknn_model_tensor(&view, view.regcmd_tensor, &t) == RKNN_SUCC)
        regcmd_blob = t.blob_index;
    if (rknn_model_tensor(&view, view.task_tensor, &t) == RKNN_SUCC)
        task_blob = t.blob_index;
    for (uint32_t r = 0; r < view.n_relocs; r++) {
        rknn_model_reloc_info ri;
        if (rknn_model_reloc(&view, r, &ri) != RKNN_SUCC || ri.n_entries == 0)
            continue;
        corrupt_reloc_entry(&ri, r, 0);
        if (ri.n_entries > 1)
            corrupt_reloc_entry(&ri, r, ri.n_entries - 1);
        corrupt_reloc_tensor(&ri, r, regcmd_blob, task_blob);
        try32(payload_pos(ri.entries.pos - 4), 0x20000000u, EXPECT_INVALID,
              "relocation entry count huge");
    }
}

static void corrupt_task_records(void)
{
    for (uint32_t t = 0; t < view.n_tasks; t++) {
        rknn_model_task_info ti = task_of(t);
        size_t rec = task_off(t);
        char what[96];

#define TASK_CASE(field_off, bits, value, desc)                                                    \
    do {                                                                                           \
        snprintf(what, sizeof what, "task %u: %s", t, desc);                                       \
        if (bits == 64)                                                                            \
            try64(rec + field_off, (uint64_t)(value), EXPECT_INVALID, what);                       \
        else                                                                                       \
            try32(rec + field_off, (uint32_t)(value), EXPECT_INVALID, what);                       \
    } while (0)

        TASK_CASE(TASK_ADDR, 64, ti.regcmd_addr + 8, "regcmd_addr misaligned (+8)");
        TASK_CASE(TASK_ADDR, 64, ti.regcmd_addr + 4, "regcmd_addr misaligned (+4)");
        TASK_CASE(TASK_ADDR, 64, view.regcmd_size, "regcmd_addr = stream size");
        TASK_CASE(TASK_ADDR, 64, view.regcmd_size - 16, "regcmd_addr leaves no room");
        TASK_CASE(TASK_ADDR, 64, 1ull << 40, "regcmd_addr 1 TiB");
        TASK_CASE(TASK_ADDR, 64, UINT64_MAX - 15, "regcmd_addr ~0");
        TASK_CASE(TASK_AMOUNT, 32, 0, "regcfg_amount 0");
        TASK_CASE(TASK_AMOUNT, 32, 0xFFFFFFFFu, "regcfg_amount ~0");
        TASK_CASE(TASK_AMOUNT, 32, 0x7FFFFFFFu, "regcfg_amount 2^31");
        TASK_CASE(TASK_AMOUNT, 32, view.n_regcmd_words, "regcfg_amount = stream words");
        TASK_CASE(TASK_AMOUNT, 32, ti.regcfg_amount + 1, "regcfg_amount + 1");
        TASK_CASE(TASK_AMOUNT, 32, ti.regcfg_amount - 1, "regcfg_amount - 1");
        TASK_CASE(TASK_INT_MASK, 32, 0, "int_mask 0");
        TASK_CASE(TASK_INT_MASK, 32, 0x1000u | ti.int_mask, "int_mask bit 12");
        TASK_CASE(TASK_ENABLE, 32, 0x80u | ti.enable_mask, "enable_mask bit 7");
#undef TASK_CASE
    }
    try32(file_pos(view.task_data) - 4, (uint32_t)view.n_tasks * 40 + 40, EXPECT_INVALID,
          "task blob length + one record");
}

static void corrupt_core_slot_counts(void)
{
    for (uint32_t k = 0; k < view.n_nodes; k++) {
        rknn_fbs_table node;
        rknn_fbs_vector counts;
        char what[96];
        if (rknn_fbs_vec_table(&view.fbs.nodes, k, &node) != RKNN_FBS_OK ||
            rknn_fbs_get_vector(&node, 10, 4, &counts) != RKNN_FBS_OK || counts.count == 0)
            continue;
        for (uint32_t s = 0; s < counts.count; s++) {
            size_t at = payload_pos(counts.pos + 4 * s);
            uint32_t c = get32(original, at);
            snprintf(what, sizeof what, "node %u slot %u: tasks + 1", k, s);
            try32(at, c + 1, EXPECT_INVALID, what);
            snprintf(what, sizeof what, "node %u slot %u: tasks ~0", k, s);
            try32(at, 0xFFFFFFFFu, EXPECT_INVALID, what);
            snprintf(what, sizeof what, "node %u slot %u: tasks 2^31", k, s);
            try32(at, 0x80000000u, EXPECT_INVALID, what);
            if (c > 0) {
                /* The single-core group may hold records its counts leave out
                 * (format.md §4.2): there op_idx decides, and the model loads. */
                snprintf(what, sizeof what, "node %u slot %u: tasks - 1", k, s);
                try32(at, c - 1, s == 0 ? EXPECT_SUCCESS : EXPECT_INVALID, what);
            }
            /* Same total, one task moved to the next core slot: the chains no
             * longer end where the stream's NOP/zero links are. */
            if (c > 0 && s + 1 < counts.count) {
                fresh();
                put32(work, at, c - 1);
                put32(work, at + 4, get32(original, at + 4) + 1);
                set_label("node %u: one task moved from slot %u to %u", k, s, s + 1);
                targeted++;
                run_case(work, model_len, EXPECT_INVALID);
            }
        }
        try32(payload_pos(counts.pos - 4), 5, EXPECT_INVALID, "core slot count 5");
        /* 1 -> 3 slots reads two more counts from the bytes behind the
         * vector: refused, as invalid or as needing more cores. */
        try32(payload_pos(counts.pos - 4), counts.count == 1 ? 3 : 1,
              counts.count == 1 ? EXPECT_REFUSED : EXPECT_INVALID, "core slot count changed");
    }
}

static void corrupt_chain_links(void)
{
    for (uint32_t t = 0; t < view.n_tasks; t++) {
        uint32_t at = tail_word(t);
        uint64_t link = stream_word(at), amount = stream_word(at + 1);
        uint32_t v = word_value(link);
        uint32_t mid = (uint32_t)task_of(t).regcmd_addr + 16; /* inside task t's body */
        char what[96];

        if (has_next_in_node(t)) {
            snprintf(what, sizeof what, "task %u: link to the middle of a task", t);
            try_word(at, make_word(TARGET_PC, REG_PC_DATA_ADDR, v + 16), EXPECT_INVALID, what);
            snprintf(what, sizeof what, "task %u: link misaligned", t);
            try_word(at, make_word(TARGET_PC, REG_PC_DATA_ADDR, v + 8), EXPECT_INVALID, what);
            snprintf(what, sizeof what, "task %u: link past the stream", t);
            try_word(at, make_word(TARGET_PC, REG_PC_DATA_ADDR, view.regcmd_size), EXPECT_INVALID,
                     what);
            snprintf(what, sizeof what, "task %u: link 0 inside a chain", t);
            try_word(at, make_word(TARGET_PC, REG_PC_DATA_ADDR, 0), EXPECT_INVALID, what);
            snprintf(what, sizeof what, "task %u: link replaced by a NOP", t);
            try_word(at, 0, EXPECT_INVALID, what);
            snprintf(what, sizeof what, "task %u: next fetch amount + 1", t);
            try_word(at + 1, amount + (1ull << 16), EXPECT_INVALID, what);
        } else {
            /* A node's last record linked to the next node's first: the two
             * may go out as one chain, so the link must be whole; cut (0 or a
             * NOP) it only splits the submission. */
            if (next_in_group(t) && v == (uint32_t)task_of(t + 1).regcmd_addr) {
                snprintf(what, sizeof what, "task %u (node end): next fetch amount + 1", t);
                try_word(at + 1, amount + (1ull << 16), EXPECT_INVALID, what);
                snprintf(what, sizeof what, "task %u (node end): link 0", t);
                try_word(at, make_word(TARGET_PC, REG_PC_DATA_ADDR, 0), EXPECT_SUCCESS, what);
                snprintf(what, sizeof what, "task %u (node end): link replaced by a NOP", t);
                try_word(at, 0, EXPECT_SUCCESS, what);
            }
            /* End of a chain: a link there must still be a task start. */
            snprintf(what, sizeof what, "task %u (chain end): link to the middle of a task", t);
            try_word(at, make_word(TARGET_PC, REG_PC_DATA_ADDR, mid), EXPECT_INVALID, what);
            snprintf(what, sizeof what, "task %u (chain end): link past the stream", t);
            try_word(at, make_word(TARGET_PC, REG_PC_DATA_ADDR, view.regcmd_size), EXPECT_INVALID,
                     what);
            snprintf(what, sizeof what, "task %u (chain end): link misaligned", t);
            try_word(at, make_word(TARGET_PC, REG_PC_DATA_ADDR, 8), EXPECT_INVALID, what);
            /* To a real task start: allowed, and rebased (the scan checks it). */
            snprintf(what, sizeof what, "task %u (chain end): link to task 0", t);
            try_word(at, make_word(TARGET_PC, REG_PC_DATA_ADDR, (uint32_t)task_of(0).regcmd_addr),
                     EXPECT_ANY, what);
        }
        snprintf(what, sizeof what, "task %u: amount word replaced by a register write", t);
        try_word(at + 1, make_word(0x0201, 0x1040, 1), EXPECT_INVALID, what);
        snprintf(what, sizeof what, "task %u: pre-enable word missing", t);
        try_word(at + 2, 0, EXPECT_INVALID, what);
        snprintf(what, sizeof what, "task %u: op-enable word missing", t);
        try_word(at + 3, make_word(0x0041, 0, 0), EXPECT_INVALID, what);
    }
}

/* A target of another block than the register's (CNA 0x1xxx <-> DPU). */
static uint16_t wrong_target(uint16_t reg)
{
    return (reg & 0xF000u) == 0x4000u ? 0x0201u : 0x1001u;
}

static void corrupt_body_word(uint32_t t, uint32_t word)
{
    uint64_t w = stream_word(word);
    uint16_t reg = word_reg(w);
    char what[96];

    if (!is_compute_target(word_target(w))) {
        /* padding inside a body: turn it into an unrelocated address */
        snprintf(what, sizeof what, "task %u word %u: NOP -> unrelocated CNA address", t, word);
        try_word(word, make_word(0x0201, 0x1070, 0x40), EXPECT_INVALID, what);
        return;
    }
    snprintf(what, sizeof what, "task %u word %u: target of another block", t, word);
    try_word(word, make_word(wrong_target(reg), reg, word_value(w)), EXPECT_INVALID, what);
    snprintf(what, sizeof what, "task %u word %u: PC target in a body", t, word);
    try_word(word, make_word(TARGET_PC, REG_PC_DATA_ADDR, 0x40), EXPECT_INVALID, what);
    snprintf(what, sizeof what, "task %u word %u: pre-enable in a body", t, word);
    try_word(word, make_word(0x0041, 0, 0), EXPECT_INVALID, what);
    snprintf(what, sizeof what, "task %u word %u: op-enable in a body", t, word);
    try_word(word, make_word(0x0081, 0x0008, 0x1d), EXPECT_INVALID, what);
    snprintf(what, sizeof what, "task %u word %u: unknown target 0x0301", t, word);
    try_word(word, make_word(0x0301, reg, word_value(w)), EXPECT_INVALID, what);
    if ((reg & 0xF000u) != 0x2000u) {
        snprintf(what, sizeof what, "task %u word %u: CMAC target on a 0x%04x register", t, word,
                 reg);
        try_word(word, make_word(0x0401, reg, word_value(w)), EXPECT_INVALID, what);
    }
    if (is_address_reg(reg)) {
        snprintf(what, sizeof what, "task %u word %u: address register value changed", t, word);
        try_word(word, make_word(word_target(w), reg, word_value(w) + 64), EXPECT_INVALID, what);
    } else {
        /* Same block, but now an address register no relocation covers. */
        uint16_t addr_reg = (reg & 0xF000u) == 0x1000u   ? 0x1070u
                            : (reg & 0xF000u) == 0x4000u ? 0x4020u
                            : (reg & 0xF000u) == 0x5000u ? 0x5018u
                            : (reg & 0xF000u) == 0x6000u ? 0x6070u
                            : (reg & 0xF000u) == 0x7000u ? 0x701Cu
                                                         : 0;
        if (addr_reg) {
            snprintf(what, sizeof what, "task %u word %u: register -> unrelocated address", t,
                     word);
            try_word(word, make_word(word_target(w), addr_reg, 0x1000), EXPECT_INVALID, what);
        }
    }
}

static void corrupt_register_words(void)
{
    for (uint32_t t = 0; t < view.n_tasks; t++) {
        rknn_model_task_info ti = task_of(t);
        uint32_t first = (uint32_t)(ti.regcmd_addr / 8), n = ti.regcfg_amount;
        corrupt_body_word(t, first);
        corrupt_body_word(t, first + n / 2);
        corrupt_body_word(t, first + n - 1);
        for (uint32_t i = 0; i < n; i++) {
            uint64_t w = stream_word(first + i);
            if (is_address_reg(word_reg(w)) && is_compute_target(word_target(w)))
                corrupt_body_word(t, first + i);
        }
    }
}

static void corrupt_compat_fields(void)
{
    size_t platform = file_pos(view.target_platform.ptr);
    size_t family = file_pos(view.npu_family.ptr);
    size_t code = field_off(&view.fbs.model, 6, 4);

    fresh();
    work[platform + view.target_platform.len - 1] ^= 0x01; /* rk3588 -> rk3589 */
    set_label("target platform string changed");
    targeted++;
    run_case(work, model_len, EXPECT_UNMATCH);
    if (view.npu_family.len) {
        fresh();
        work[family + view.npu_family.len - 1] ^= 0x01; /* "RKNPU v2" -> "RKNPU v3" */
        set_label("NPU family string changed");
        targeted++;
        run_case(work, model_len, EXPECT_UNMATCH);
    }
    if (code) {
        try32(code, 10000, EXPECT_UNMATCH, "compiler code 1.0.0");
        try32(code, 990000, EXPECT_UNMATCH, "compiler code 99.0.0");
    }
}

/* A model for more cores than the SoC has (format.md §3.1,
 * rknn_model_check_compat): an RK3588 sample's platform renamed rk3566,
 * whose family "RKNPU v2" the RK3566 also takes, loaded on an RK3566. */
static void corrupt_core_count(rknpu_soc_id soc)
{
    size_t name = file_pos(view.target_platform.ptr);

    if (view.max_cores < 2 || view.target_platform.len != 6)
        return;
    fresh();
    memcpy(work + name, "rk3566", 6);
    if (platform(RKNPU_SOC_RK3566) != RKNN_SUCC) {
        fail("rknpu_platform_init failed");
        return;
    }
    set_label("task groups for %u cores on the 1-core RK3566", view.max_cores);
    targeted++;
    run_case(work, model_len, EXPECT_UNMATCH);
    if (platform(soc) != RKNN_SUCC)
        fail("rknpu_platform_init failed");
}

/* No task records at all (format.md §4.1): the task blob emptied, and every
 * node's slot 10 (tasks per core slot, format.md §3.3) with it, which the
 * parse takes. */
static void corrupt_no_tasks(void)
{
    fresh();
    put32(work, file_pos(view.task_data) - 4, 0);
    for (uint32_t k = 0; k < view.n_nodes; k++) {
        rknn_fbs_table t;
        rknn_fbs_vector counts;
        if (rknn_fbs_vec_table(&view.fbs.nodes, k, &t) == RKNN_FBS_OK &&
            rknn_fbs_get_vector(&t, 10, 4, &counts) == RKNN_FBS_OK)
            put32(work, payload_pos(counts.pos - 4), 0);
    }
    set_label("no task records");
    targeted++;
    run_case(work, model_len, EXPECT_INVALID);
}

/* Stream words outside every task's body and tail: the NPU is never told to
 * run them, so whatever a model puts there must not reach the relocated
 * stream as an address the NPU could use. Likewise the bytes between the
 * end of the stream and the end of its 64-byte aligned DMA block. */
static uint8_t *covered_words(void)
{
    uint8_t *covered = calloc(view.n_regcmd_words + 1u, 1);

    if (!covered)
        return NULL;
    for (uint32_t t = 0; t < view.n_tasks; t++) {
        rknn_model_task_info ti = task_of(t);
        for (uint64_t i = ti.regcmd_addr / 8;
             i < ti.regcmd_addr / 8 + ti.regcfg_amount + 4u && i < view.n_regcmd_words; i++)
            covered[i] = 1;
    }
    return covered;
}

/* Fill the carve-out with address words pointing nowhere, so that stale
 * bytes the loader fails to overwrite show up in the scan. */
static void poison_carveout(void)
{
    for (size_t i = 0; i + 8 <= sizeof carve; i += 8)
        put64(carve, i, make_word(0x0201, 0x1070, 0xDEAD0000u));
}

/* The stream's blob grown over the blob after it: the first context
 * relocates the stream where it lies in its copy of the file, so the next
 * blob's length would be rewritten (a NOP in a word no task covers) after
 * the relocation read it. rknn_init must refuse the file, not leave a
 * context that rknn_dup_context (check_success) then refuses. Found by
 * fuzz_rknn_init. Smaller growths may load; their duplicates must too. */
static void corrupt_stream_over_next_blob(void)
{
    size_t end = file_pos(view.regcmd) + view.regcmd_size, next = 0;

    for (uint32_t b = 0; b < view.n_blobs; b++) {
        const uint8_t *data;
        uint32_t size;
        if (rknn_model_blob(&view, b, &data, &size) == RKNN_SUCC && size && file_pos(data) > end &&
            (!next || file_pos(data) < next))
            next = file_pos(data);
    }
    if (!next) {
        fail("no blob after the stream");
        return;
    }
    for (uint32_t grow = 8; end + grow <= next - 4; grow += 8)
        try32(file_pos(view.regcmd) - 4, view.regcmd_size + grow, EXPECT_ANY,
              "stream blob grown into the gap before the next blob");
    try32(file_pos(view.regcmd) - 4, (uint32_t)(next - file_pos(view.regcmd)), EXPECT_INVALID,
          "stream blob grown over the next blob's length");
}

static void corrupt_gaps(void)
{
    uint8_t *covered = covered_words();
    uint32_t gaps[3] = {UINT32_MAX, UINT32_MAX, UINT32_MAX}, n_gaps = 0, last_gap = UINT32_MAX;
    uint32_t mid = (uint32_t)task_of(0).regcmd_addr + 16;

    if (!covered) {
        fail("out of host memory");
        return;
    }
    for (uint32_t i = 0; i < view.n_regcmd_words; i++) {
        if (covered[i])
            continue;
        if (n_gaps < 2)
            gaps[n_gaps++] = i;
        last_gap = i;
    }
    gaps[2] = last_gap;
    for (uint32_t k = 0; k < 3; k++) {
        char what[96];
        if (gaps[k] == UINT32_MAX)
            continue;
        snprintf(what, sizeof what, "unfetched word %u: unrelocated CNA address", gaps[k]);
        try_word(gaps[k], make_word(0x0201, 0x1070, 0x1234u), EXPECT_ANY, what);
        snprintf(what, sizeof what, "unfetched word %u: DPU address near 4 GiB", gaps[k]);
        try_word(gaps[k], make_word(0x1001, 0x4020, 0xFFFFFF00u), EXPECT_ANY, what);
        snprintf(what, sizeof what, "unfetched word %u: PC link into a task", gaps[k]);
        try_word(gaps[k], make_word(TARGET_PC, REG_PC_DATA_ADDR, mid), EXPECT_ANY, what);
    }
    /* A stream whose length is not a multiple of 64: drop trailing unfetched
     * words one by one; the DMA block's padding must not hold stale data. */
    for (uint32_t drop = 1;
         drop <= 7 && view.n_regcmd_words > drop && !covered[view.n_regcmd_words - drop]; drop++) {
        fresh();
        put32(work, file_pos(view.regcmd) - 4, view.regcmd_size - 8 * drop);
        poison_carveout();
        set_label("regcmd blob %u words shorter (padding after the stream)", drop);
        targeted++;
        run_case(work, model_len, EXPECT_ANY);
    }
    free(covered);
}

/* A valid model without constants (e.g. a pure element-wise graph): every
 * weight blob emptied and the relocation tables of constants dropped, where
 * they are the last tables. It must load, relocated, with no weights. */
static void derive_model_without_constants(void)
{
    rknn_model_tensor_info t;
    uint32_t keep = 0, regcmd_blob = UINT32_MAX, task_blob = UINT32_MAX;

    for (uint32_t r = 0; r < view.n_relocs; r++) {
        rknn_model_reloc_info ri;
        if (rknn_model_reloc(&view, r, &ri) != RKNN_SUCC ||
            rknn_model_tensor(&view, ri.tensor_index, &t) != RKNN_SUCC)
            return;
        int constant = t.kind == RKNN_MODEL_KIND_CONST || t.kind == RKNN_MODEL_KIND_GENERATED_CONST;
        if (!constant && keep != r)
            return; /* constants are not a suffix of the table: not derivable */
        if (!constant)
            keep = r + 1;
    }
    if (rknn_model_tensor(&view, view.regcmd_tensor, &t) == RKNN_SUCC)
        regcmd_blob = t.blob_index;
    if (rknn_model_tensor(&view, view.task_tensor, &t) == RKNN_SUCC)
        task_blob = t.blob_index;
    fresh();
    put32(work, payload_pos(view.fbs.relocs.pos - 4), keep);
    for (uint32_t b = 0; b < view.n_blobs; b++) {
        const uint8_t *data;
        uint32_t size;
        if (b != regcmd_blob && b != task_blob &&
            rknn_model_blob(&view, b, &data, &size) == RKNN_SUCC && data && size)
            put32(work, file_pos(data) - 4, 0);
    }
    set_label("model without constants (%u of %u relocation tables kept)", keep, view.n_relocs);
    targeted++;
    run_case(work, model_len, EXPECT_SUCCESS);
}

/* ---- seeded random mutations ---------------------------------------------------- */

static uint64_t rng_state;

static uint32_t rnd(void)
{
    /* xorshift64*: a fixed seed gives the same cases on every run */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (uint32_t)((rng_state * 0x2545F4914F6CDD1Dull) >> 32);
}

static uint32_t rnd_below(uint32_t n)
{
    return n ? rnd() % n : 0;
}

/* An offset in one of the regions the loader interprets. */
static size_t random_offset(void)
{
    uint32_t region = rnd_below(100);
    size_t stream = file_pos(view.regcmd), tasks = file_pos(view.task_data);

    if (region < 40)
        return stream + rnd_below(view.regcmd_size);
    if (region < 60)
        return tasks + rnd_below(view.n_tasks * RKNN_MODEL_TASK_RECORD_SIZE);
    if (region < 75 && view.n_relocs) {
        rknn_model_reloc_info ri;
        if (rknn_model_reloc(&view, rnd_below(view.n_relocs), &ri) == RKNN_SUCC && ri.n_entries)
            return payload_pos(ri.entries.pos) + rnd_below(ri.n_entries * 8);
    }
    return rnd_below((uint32_t)model_len);
}

static void random_mutation(size_t len)
{
    static const uint32_t interesting[] = {
        0,    1,    2,     4,      6,          8,           16,          64,         0x7F,
        0x80, 0xFF, 0x100, 0x1000, 0x7FFFFFFF, 0x80000000u, 0xFFFFFFFFu, 0xFFFFFFF0u};
    size_t off = random_offset();
    uint32_t kind = rnd_below(6);

    if (off + 8 > len)
        off = len >= 8 ? len - 8 : 0;
    switch (kind) {
    case 0: work[off] = (uint8_t)rnd(); break;
    case 1: work[off] ^= (uint8_t)(1u << rnd_below(8)); break;
    case 2:
        put32(work, off & ~(size_t)3,
              interesting[rnd_below(sizeof interesting / sizeof interesting[0])]);
        break;
    case 3:
        put32(work, off & ~(size_t)3, get32(work, off & ~(size_t)3) + rnd_below(33) - 16);
        break;
    case 4: {
        /* a regcmd word's target or register swapped for a known one */
        size_t w = file_pos(view.regcmd) + (size_t)rnd_below(view.n_regcmd_words) * 8;
        if (rnd() & 1)
            put32(work, w + 4,
                  (get32(work, w + 4) & 0xFFFFu) | (uint32_t)compute_targets[rnd_below(7)] << 16);
        else
            put32(work, w, (get32(work, w) & 0xFFFF0000u) | address_regs[rnd_below(9)]);
        break;
    }
    default: {
        /* copy one stream word over another */
        size_t a = file_pos(view.regcmd) + (size_t)rnd_below(view.n_regcmd_words) * 8;
        size_t b = file_pos(view.regcmd) + (size_t)rnd_below(view.n_regcmd_words) * 8;
        put64(work, a, get64(work, b));
        break;
    }
    }
}

static void corrupt_randomly(uint32_t seed)
{
    rng_state = 0x9E3779B97F4A7C15ull ^ seed;
    for (uint32_t i = 0; i < RANDOM_CASES_PER_MODEL; i++) {
        uint32_t n = 1 + rnd_below(3);
        fresh();
        for (uint32_t k = 0; k < n; k++)
            random_mutation(model_len);
        set_label("random case %u (seed %u)", i, seed);
        random_cases++;
        run_case(work, model_len, EXPECT_ANY);
    }
}

/* ---- driver ------------------------------------------------------------------- */

static void test_sample(const sample *s, uint32_t seed)
{
    char path[512];
    unsigned long before = cases, acc_before = accepted;

    model_len = test_read_file(test_path(path, sizeof path, models_dir, s->file), original,
                               sizeof original - 64);
    set_label("%s", s->file);
    if (!model_len) {
        fail("cannot read %s", path);
        return;
    }
    if (platform(s->soc) != RKNN_SUCC) {
        fail("rknpu_platform_init failed");
        return;
    }
    if (rknn_model_parse(original, model_len, &view) != RKNN_SUCC) {
        fail("the unmodified sample does not parse");
        return;
    }
    set_label("%s unmodified", s->file);
    run_case(original, model_len, EXPECT_SUCCESS);
    corrupt_truncations();
    corrupt_header();
    corrupt_flatbuffer_offsets();
    corrupt_relocations();
    corrupt_task_records();
    corrupt_core_slot_counts();
    corrupt_chain_links();
    corrupt_register_words();
    corrupt_compat_fields();
    corrupt_core_count(s->soc);
    corrupt_no_tasks();
    corrupt_gaps();
    corrupt_stream_over_next_blob();
    derive_model_without_constants();
    corrupt_randomly(seed);
    printf("%s: %lu cases, %lu loaded\n", s->file, cases - before, accepted - acc_before);
}

int main(int argc, char **argv)
{
    int skip;

    models_dir = test_models_dir(argc, argv);
    skip = test_require_models(models_dir, samples[0].file);
    if (skip)
        return skip;
    for (uint32_t i = 0; i < sizeof samples / sizeof samples[0]; i++)
        test_sample(&samples[i], 1000 + i);
    printf("test_rknn_init_corrupt: %lu cases (%lu targeted, %lu random), %lu loaded, "
           "%lu failed -> %s\n",
           cases, targeted, random_cases, accepted, failures, failures ? "FAIL" : "PASS");
    return failures ? 1 : 0;
}
