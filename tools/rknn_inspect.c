/*
 * rknn-inspect - what the rknpu-bm loader sees in a .rknn file.
 *
 *   rknn-inspect [--regcmd N] [--relocs] [--tasks] MODEL.rknn
 *
 * Everything printed comes from the runtime's own parser and loader (the
 * host library), so the tool shows exactly what rknn_init() would accept:
 * container, model strings, tensors, nodes (with custom-op attributes), task
 * groups per core count, the register command stream, relocations, the
 * memory plan and, for every SoC profile, whether the model would load there.
 * A file the parser rejects ends the program with status 1 and the loader's
 * error line on stderr; so does a model that parses but cannot be loaded on
 * the SoC it was built for.
 *
 * Host-only tool: it may use the heap and stdio.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npu_regcmd.h"
#include "npu_regs.h"
#include "npu_soc.h"
#include "rknn_api.h"
#include "rknn_ctx.h"
#include "rknn_model.h"
#include "rknpu_bm.h"
#include "tool_files.h"

#define MAX_MODEL_BYTES (1u << 30)
#define ERROR_TEXT_MAX  512

/* ---- log hook: errors go to stderr, or into a buffer while we ask a
 * question whose "no" is an answer (the compatibility verdicts) ---------- */

static int capture_errors;
static char last_error[ERROR_TEXT_MAX];

void rknpu_hook_log(rknpu_log_level level, const char *msg)
{
    if (level != RKNPU_LOG_ERROR) {
        if (level == RKNPU_LOG_WARN)
            fprintf(stderr, "rknn-inspect: warning: %s\n", msg);
        return;
    }
    snprintf(last_error, sizeof last_error, "%s", msg);
    if (!capture_errors)
        fprintf(stderr, "rknn-inspect: error: %s\n", msg);
}

/* ---- small printing helpers ------------------------------------------------ */

/* A model string, printable ASCII only (anything else as \xNN). */
static void print_str(rknn_model_string s)
{
    putchar('\'');
    for (uint32_t i = 0; i < s.len; i++) {
        unsigned char c = (unsigned char)s.ptr[i];
        if (c >= 0x20 && c < 0x7f && c != '\\' && c != '\'')
            putchar(c);
        else
            printf("\\x%02x", c);
    }
    putchar('\'');
}

static void print_dims(const int32_t *d, uint32_t n)
{
    putchar('[');
    for (uint32_t i = 0; i < n; i++)
        printf(i ? ",%" PRId32 : "%" PRId32, d[i]);
    putchar(']');
}

static const char *kind_name(int kind)
{
    switch (kind) {
    case RKNN_MODEL_KIND_NULL: return "null";
    case RKNN_MODEL_KIND_INPUT: return "input";
    case RKNN_MODEL_KIND_OUTPUT: return "output";
    case RKNN_MODEL_KIND_INTERNAL: return "internal";
    case RKNN_MODEL_KIND_CONST: return "const";
    case RKNN_MODEL_KIND_HELPER_CONST: return "helper-const";
    case RKNN_MODEL_KIND_LUT: return "lut";
    case RKNN_MODEL_KIND_REGLIST_OLD: return "reglist";
    case RKNN_MODEL_KIND_GENERATED_CONST: return "generated-const";
    case RKNN_MODEL_KIND_REGCMD: return "regcmd";
    case RKNN_MODEL_KIND_TASKS: return "tasks";
    default: return "unknown";
    }
}

static const char *dtype_name(int dtype)
{
    switch (dtype) {
    case RKNN_MODEL_DTYPE_INT32: return "int32";
    case RKNN_MODEL_DTYPE_INT8: return "int8";
    case RKNN_MODEL_DTYPE_INT16: return "int16";
    case RKNN_MODEL_DTYPE_FLOAT32: return "float32";
    case RKNN_MODEL_DTYPE_INT64: return "int64";
    case RKNN_MODEL_DTYPE_FLOAT16: return "float16";
    case RKNN_MODEL_DTYPE_RAW: return "raw";
    default: return "unknown";
    }
}

/* Name of a regcmd target id: a block, one of the PC tail markers, or NOP. */
static const char *target_name(uint16_t target)
{
    int block;

    switch (target) {
    case NPU_TARGET_NOP: return "NOP";
    case NPU_TARGET_PRE_ENABLE: return "PRE_ENABLE";
    case NPU_TARGET_OP_ENABLE_ALL: return "OP_ENABLE";
    default: break;
    }
    block = npu_block_from_target(target);
    return block < 0 ? "UNKNOWN" : npu_block_name((enum npu_block)block);
}

/* Register name in the model's SoC layout (RK356x CORE registers sit one
 * slot lower than in the RK3588 table), or NULL. */
static const char *reg_name(const npu_soc_profile *soc, uint16_t reg)
{
    uint32_t table_offset = soc ? npu_soc_to_table_offset(soc, reg) : reg;
    const npu_reg_info *r = table_offset == NPU_SOC_NO_OFFSET ? NULL : npu_reg_lookup(table_offset);

    return r ? r->name : NULL;
}

static const char *error_name(int ret)
{
    switch (ret) {
    case RKNN_ERR_MALLOC_FAIL: return "RKNN_ERR_MALLOC_FAIL";
    case RKNN_ERR_PARAM_INVALID: return "RKNN_ERR_PARAM_INVALID";
    case RKNN_ERR_MODEL_INVALID: return "RKNN_ERR_MODEL_INVALID";
    case RKNN_ERR_TARGET_PLATFORM_UNMATCH: return "RKNN_ERR_TARGET_PLATFORM_UNMATCH";
    default: return "error";
    }
}

static uint64_t stream_word(const rknn_model_view *m, uint32_t i)
{
    return rknn_model_le64(m->regcmd + (size_t)i * RKNN_MODEL_REGCMD_WORD_SIZE);
}

/* ---- a tiny counter table (value -> occurrences), for histograms ------- */

typedef struct {
    uint32_t key[64];
    uint32_t count[64];
    uint32_t n;
    uint32_t other; /* occurrences of keys that did not fit */
} histogram;

static void hist_add(histogram *h, uint32_t key)
{
    for (uint32_t i = 0; i < h->n; i++) {
        if (h->key[i] == key) {
            h->count[i]++;
            return;
        }
    }
    if (h->n == sizeof h->key / sizeof h->key[0]) {
        h->other++;
        return;
    }
    h->key[h->n] = key;
    h->count[h->n++] = 1;
}

static void hist_print_hex(const histogram *h)
{
    for (uint32_t i = 0; i < h->n; i++)
        printf(" 0x%" PRIx32 "=%" PRIu32, h->key[i], h->count[i]);
    if (h->other)
        printf(" other=%" PRIu32, h->other);
}

/* ---- sections ---------------------------------------------------------------- */

static void print_container(const char *path, const rknn_model_view *m)
{
    printf("file        %s (%zu bytes)\n", path, m->file_size);
    printf("container   version %" PRIu32 ", header %zu, payload %zu @ %zu, json %zu @ %zu, "
           "trailing %zu\n",
           m->container_version, m->header_size, m->payload_size, m->payload_offset, m->json_size,
           m->json_offset, m->trailing_bytes);
    printf("model       schema %" PRId32 ", target platform ", m->schema_generation);
    print_str(m->target_platform);
    printf(", npu family ");
    print_str(m->npu_family);
    printf(", source ");
    print_str(m->source_framework);
    printf("\ncompiler    code %" PRIu32 " (%" PRIu32 ".%" PRIu32 ".%" PRIu32 "), ",
           m->compiler_code, m->compiler_code / 10000, m->compiler_code / 100 % 100,
           m->compiler_code % 100);
    print_str(m->compiler);
    printf("\ncustom      string ");
    print_str(m->custom_string);
    printf(", op types ");
    print_str(m->custom_op_types);
    printf("\nshape mode  ");
    print_str(m->shape_mode);
    printf("\n");
}

static void print_index_list(const rknn_model_view *m, int inputs)
{
    uint32_t n = inputs ? m->n_inputs : m->n_outputs, t;

    putchar('[');
    for (uint32_t i = 0; i < n; i++) {
        int ret = inputs ? rknn_model_io(m, 1, i, &t) : rknn_model_io(m, 0, i, &t);
        printf(i ? ",%" PRIu32 : "%" PRIu32, ret == RKNN_SUCC ? t : UINT32_MAX);
    }
    putchar(']');
}

static void print_quant(const rknn_model_tensor_info *t)
{
    float scale = 0;
    int32_t zp = 0;

    if (t->n_scales == 0 && t->n_zero_points == 0)
        return;
    printf(" quant ");
    print_str(t->quant_dtype);
    putchar('/');
    print_str(t->quant_method);
    if (t->n_scales > 0 && rknn_model_tensor_scale(t, 0, &scale) == RKNN_SUCC)
        printf(" scale %.9g", scale);
    if (t->n_zero_points > 0 && rknn_model_tensor_zero_point(t, 0, &zp) == RKNN_SUCC)
        printf(" zp %" PRId32, zp);
    if (t->n_scales > 1)
        printf(" (%" PRIu32 " channels)", t->n_scales);
}

static void print_tensors(const rknn_model_view *m)
{
    printf("graph       %" PRIu32 " tensors, %" PRIu32 " nodes, %" PRIu32 " blobs, inputs ",
           m->n_tensors, m->n_nodes, m->n_blobs);
    print_index_list(m, 1);
    printf(", outputs ");
    print_index_list(m, 0);
    printf("\narena       %" PRIu64 " bytes (max offset+size of input/output/internal)\n",
           m->arena_size);
    for (uint32_t i = 0; i < m->n_tensors; i++) {
        rknn_model_tensor_info t;
        if (rknn_model_tensor(m, i, &t) != RKNN_SUCC)
            continue;
        printf("tensor %3" PRIu32 " %-8s %-7s ", i, kind_name(t.kind), dtype_name(t.dtype));
        print_str(t.name);
        printf(" shape ");
        print_dims(t.dims, t.n_dims);
        printf(" native ");
        print_dims(t.native_dims, t.n_native_dims);
        printf(" size %" PRIu32, t.size);
        if (t.kind == RKNN_MODEL_KIND_INPUT || t.kind == RKNN_MODEL_KIND_OUTPUT ||
            t.kind == RKNN_MODEL_KIND_INTERNAL)
            printf(" arena %" PRIu32, t.arena_offset);
        if (t.data)
            printf(" blob %" PRIu32 " (%" PRIu32 " bytes)", t.blob_index, t.data_size);
        if (t.compressed)
            printf(" compressed");
        print_quant(&t);
        printf("\n");
    }
}

static void print_attr_value(const rknn_model_attr *a)
{
    rknn_model_attr_value e;

    if (a->value_type == RKNN_MODEL_ATTR_STRING) {
        rknn_model_string s = {(const char *)a->value, a->value_size};
        print_str(s);
        return;
    }
    if (a->value_type == RKNN_MODEL_ATTR_ARRAY)
        putchar('[');
    for (uint32_t k = 0; k < a->n_elems; k++) {
        if (rknn_model_attr_elem(a, k, &e) != RKNN_SUCC)
            break;
        if (k)
            putchar(',');
        if (e.type == RKNN_MODEL_ATTR_DOUBLE && e.size == 8) {
            double d;
            uint64_t bits = rknn_model_le64(e.data);
            memcpy(&d, &bits, sizeof d);
            printf("%.17g", d);
        } else if (e.type == RKNN_MODEL_ATTR_INT32 && e.size == 4) {
            printf("%" PRId32, (int32_t)rknn_model_le32(e.data));
        } else if (e.type == RKNN_MODEL_ATTR_INT64 && e.size == 8) {
            printf("%" PRId64, (int64_t)rknn_model_le64(e.data));
        } else if (e.type == RKNN_MODEL_ATTR_BOOL && e.size == 1) {
            printf(e.data[0] ? "true" : "false");
        } else {
            printf("<type 0x%02x, %" PRIu32 " bytes>", e.type, e.size);
        }
    }
    if (a->value_type == RKNN_MODEL_ATTR_ARRAY)
        putchar(']');
}

static void print_node_io(const rknn_model_node_info *n, int inputs)
{
    uint32_t count = inputs ? n->n_inputs : n->n_outputs, t;

    putchar('[');
    for (uint32_t k = 0; k < count; k++) {
        int ret = inputs ? rknn_model_node_input(n, k, &t) : rknn_model_node_output(n, k, &t);
        printf(k ? ",%" PRIu32 : "%" PRIu32, ret == RKNN_SUCC ? t : UINT32_MAX);
    }
    putchar(']');
}

static void print_nodes(const rknn_model_view *m)
{
    for (uint32_t i = 0; i < m->n_nodes; i++) {
        rknn_model_node_info n;
        rknn_model_attr a;
        if (rknn_model_node(m, i, &n) != RKNN_SUCC)
            continue;
        printf("node %3" PRIu32 " ", i);
        print_str(n.op_type);
        putchar(' ');
        print_str(n.name);
        printf(" exec %s in ", n.executor == RKNN_MODEL_EXECUTOR_NPU ? "npu" : "cpu");
        print_node_io(&n, 1);
        printf(" out ");
        print_node_io(&n, 0);
        if (n.n_core_slots) {
            printf(" tasks [");
            for (uint32_t s = 0; s < n.n_core_slots; s++)
                printf(s ? ",%" PRIu32 : "%" PRIu32, n.tasks_per_slot[s]);
            putchar(']');
        }
        printf("\n");
        for (uint32_t k = 0; k < n.n_attrs; k++) {
            if (rknn_model_node_attr(&n, k, &a) != RKNN_SUCC)
                continue;
            printf("  attr ");
            print_str(a.name);
            printf(" dtype ");
            print_str(a.dtype);
            printf(" = ");
            print_attr_value(&a);
            printf("\n");
        }
    }
}

/* Records of core group `slot` the nodes' slot-10 counts do not count (the
 * single-core group's LUT loads, format.md §4.2). */
static uint32_t uncounted_records(const rknn_model_view *m, uint32_t slot, uint32_t group_count)
{
    uint32_t counted = 0;

    for (uint32_t k = 0; k < m->n_nodes; k++) {
        rknn_model_node_info n;
        if (rknn_model_node(m, k, &n) == RKNN_SUCC && slot < n.n_core_slots)
            counted += n.tasks_per_slot[slot];
    }
    return group_count - counted;
}

/* Submissions of a whole run on `cores` cores, as the runtime makes them. */
static uint32_t count_steps(const rknn_model_view *m, uint32_t cores)
{
    uint32_t node = 0, steps = 0;
    rknn_model_step st;

    while (rknn_model_next_step(m, cores, &node, m->n_nodes, &st) == RKNN_SUCC) {
        uint32_t any = 0;
        for (uint32_t c = 0; c < cores; c++)
            any |= st.core[c].count;
        if (!any)
            break;
        steps++;
    }
    return steps;
}

static void print_groups(const rknn_model_view *m)
{
    printf("task groups %" PRIu32 " core slot(s), up to %" PRIu32 " core(s)\n", m->n_core_slots,
           m->max_cores);
    for (uint32_t cores = 1, slot = 0; cores <= m->max_cores; cores++) {
        uint32_t extra = 0;
        printf("  %" PRIu32 " core(s):", cores);
        for (uint32_t c = 0; c < cores; c++, slot++) {
            rknn_model_task_range g;
            if (rknn_model_task_group(m, cores, c, &g) != RKNN_SUCC)
                continue;
            printf(" core%" PRIu32 " tasks %" PRIu32 "+%" PRIu32, c, g.first, g.count);
            extra += uncounted_records(m, slot, g.count);
        }
        printf("; %" PRIu32 " submission(s) per run", count_steps(m, cores));
        if (extra)
            printf("; %" PRIu32 " record(s) beyond the nodes' counts (LUT loads)", extra);
        printf("\n");
    }
}

/* Words per target, PC chain links and the task records' masks. */
static void print_regcmd_summary(const rknn_model_view *m, int list_tasks)
{
    static const uint16_t targets[] = {
        NPU_TARGET_CNA,        NPU_TARGET_CMAC,          NPU_TARGET_CORE,     NPU_TARGET_DPU,
        NPU_TARGET_DPU_RDMA,   NPU_TARGET_PPU,           NPU_TARGET_PPU_RDMA, NPU_TARGET_PC,
        NPU_TARGET_PRE_ENABLE, NPU_TARGET_OP_ENABLE_ALL, NPU_TARGET_NOP,
    };
    uint32_t per_target[sizeof targets / sizeof targets[0]] = {0}, unknown = 0, links = 0;
    histogram enable = {0}, irq = {0};

    for (uint32_t i = 0; i < m->n_regcmd_words; i++) {
        uint64_t w = stream_word(m, i);
        size_t k = 0;
        while (k < sizeof targets / sizeof targets[0] && targets[k] != npu_regcmd_target(w))
            k++;
        if (k < sizeof targets / sizeof targets[0])
            per_target[k]++;
        else
            unknown++;
        if (npu_regcmd_target(w) == NPU_TARGET_PC && npu_regcmd_reg(w) == NPU_PC_DATA_ADDR &&
            npu_regcmd_value(w) != 0)
            links++;
    }
    printf("regcmd      %" PRIu32 " bytes, %" PRIu32 " words; words per target:", m->regcmd_size,
           m->n_regcmd_words);
    for (size_t k = 0; k < sizeof targets / sizeof targets[0]; k++)
        if (per_target[k])
            printf(" %s=%" PRIu32, target_name(targets[k]), per_target[k]);
    if (unknown)
        printf(" UNKNOWN=%" PRIu32, unknown);
    printf("\nchain       %" PRIu32 " non-zero PC_DATA_ADDR links (stream-relative)\n", links);
    for (uint32_t t = 0; t < m->n_tasks; t++) {
        rknn_model_task_info ti;
        if (rknn_model_task(m, t, &ti) != RKNN_SUCC)
            continue;
        hist_add(&enable, ti.enable_mask);
        hist_add(&irq, ti.int_mask);
        if (list_tasks)
            printf("task %5" PRIu32 " op %" PRIu32 " enable 0x%" PRIx32 " int_mask 0x%" PRIx32
                   " int_clear 0x%" PRIx32 " amount %" PRIu32 " regcmd +0x%" PRIx64 "\n",
                   t, ti.op_idx, ti.enable_mask, ti.int_mask, ti.int_clear, ti.regcfg_amount,
                   ti.regcmd_addr);
    }
    printf("tasks       %" PRIu32 "; enable masks:", m->n_tasks);
    hist_print_hex(&enable);
    printf("; int masks:");
    hist_print_hex(&irq);
    printf("\n");
}

static void print_relocs(const rknn_model_view *m, const npu_soc_profile *soc, int list)
{
    histogram regs = {0};
    uint32_t entries = 0;

    for (uint32_t r = 0; r < m->n_relocs; r++) {
        rknn_model_reloc_info ri;
        if (rknn_model_reloc(m, r, &ri) != RKNN_SUCC)
            continue;
        for (uint32_t e = 0; e < ri.n_entries; e++) {
            uint32_t addend, word;
            uint64_t w;
            if (rknn_model_reloc_entry(&ri, e, &addend, &word) != RKNN_SUCC)
                continue;
            entries++;
            w = stream_word(m, word);
            hist_add(&regs, npu_regcmd_reg(w));
            if (list) {
                const char *name = reg_name(soc, npu_regcmd_reg(w));
                printf("reloc ");
                print_str(ri.tensor_name);
                printf(" tensor %" PRIu32 " word %" PRIu32
                       " target %s reg 0x%04x %s addend 0x%" PRIx32 "\n",
                       ri.tensor_index, word, target_name(npu_regcmd_target(w)), npu_regcmd_reg(w),
                       name ? name : "?", addend);
            }
        }
    }
    printf("relocations %" PRIu32 " tensors, %" PRIu32 " entries; registers patched:", m->n_relocs,
           entries);
    for (uint32_t i = 0; i < regs.n; i++) {
        const char *name = reg_name(soc, (uint16_t)regs.key[i]);
        printf(" 0x%04" PRIx32 "(%s)=%" PRIu32, regs.key[i], name ? name : "?", regs.count[i]);
    }
    printf("\n");
}

static void print_words(const rknn_model_view *m, const npu_soc_profile *soc, uint32_t n)
{
    if (n > m->n_regcmd_words)
        n = m->n_regcmd_words;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t w = stream_word(m, i);
        const char *name = NULL;
        if (npu_regcmd_target(w) != NPU_TARGET_NOP)
            name = reg_name(soc, npu_regcmd_reg(w));
        printf("word %6" PRIu32 " %016" PRIx64 " %-10s 0x%08" PRIx32 " -> 0x%04x %s\n", i, w,
               target_name(npu_regcmd_target(w)), npu_regcmd_value(w), npu_regcmd_reg(w),
               name ? name : "");
    }
}

/* rknpu_model_mem_requirements(): what rknn_init() will take from the
 * carve-out. Its failure means the model cannot load on its own SoC. */
static int print_memory(const uint8_t *data, size_t size)
{
    rknpu_model_mem need;
    int ret = rknpu_model_mem_requirements(data, size, &need);

    if (ret != RKNN_SUCC) {
        printf("memory      not loadable (%s): %s\n", error_name(ret), last_error);
        return ret;
    }
    printf("memory      weights %" PRIu32 ", regcmd %" PRIu32 ", arena %" PRIu32
           ", loader scratch %" PRIu32 ", carve-out peak %" PRIu64 " bytes (model copy %" PRIu32
           "), zero copy %" PRIu64 " bytes, static %" PRIu32 " bytes per context\n",
           need.weight_bytes, need.regcmd_bytes, need.internal_bytes, need.loader_scratch_bytes,
           need.carveout_bytes, need.model_copy_bytes, need.carveout_zero_copy_bytes,
           need.context_static_bytes);
    return RKNN_SUCC;
}

/* For every SoC profile: would rknn_init() accept the model there? The
 * same checks as rknn_init: compatibility, then the SoC's stream rules. */
static void print_compat(const rknn_model_view *m)
{
    for (int id = 0; id < RKNPU_SOC_COUNT; id++) {
        const npu_soc_profile *soc = npu_soc_get((rknpu_soc_id)id);
        rknn_mem_plan plan;
        int ret;
        if (!soc)
            continue;
        capture_errors = 1;
        last_error[0] = 0;
        ret = rknn_model_check_compat(m, soc);
        if (ret == RKNN_SUCC)
            ret = rknn_loader_validate(m, soc, &plan);
        capture_errors = 0;
        if (ret == RKNN_SUCC)
            printf("compat      %s: yes\n", soc->name);
        else
            printf("compat      %s: no (%s)\n", soc->name, last_error);
    }
}

/* Container 4: the stream, records and relocations the runtime builds from
 * the register lists (format.md §5.1), on the model's own SoC. */
static int lower(rknn_model_view *m, const npu_soc_profile *soc, void **buf)
{
    int ret;

    *buf = malloc(m->lowered_size);
    if (!*buf)
        return RKNN_ERR_MALLOC_FAIL;
    capture_errors = 1;
    ret = rknn_model_lower(m, soc, *buf, m->lowered_size);
    capture_errors = 0;
    if (ret == RKNN_SUCC)
        printf("lowered     container %" PRIu32 " register lists -> %" PRIu32 " tasks, %" PRIu32
               " stream bytes, %" PRIu32 " relocated words (format.md §5.1)\n",
               m->container_version, m->n_tasks, m->regcmd_size, m->n_reloc_entries);
    return ret;
}

/* ---- main ---------------------------------------------------------------- */

static int usage(void)
{
    fprintf(stderr, "usage: rknn-inspect [--regcmd N] [--relocs] [--tasks] MODEL.rknn\n");
    return 2;
}

int main(int argc, char **argv)
{
    const char *path = NULL;
    unsigned long n_words = 0;
    int relocs = 0, tasks = 0, ret;
    rknn_model_view m;
    const npu_soc_profile *soc;
    char platform[32];
    uint8_t *data;
    void *lowered = NULL;
    size_t size = 0;

    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--regcmd") == 0 && i + 1 < argc) {
            char *end;
            n_words = strtoul(argv[++i], &end, 0);
            if (*end)
                return usage();
        } else if (strcmp(argv[i], "--relocs") == 0) {
            relocs = 1;
        } else if (strcmp(argv[i], "--tasks") == 0) {
            tasks = 1;
        } else if (argv[i][0] == '-' || path) {
            return usage();
        } else {
            path = argv[i];
        }
    }
    if (!path)
        return usage();
    data = tool_read_file(path, MAX_MODEL_BYTES, &size);
    if (!data) {
        fprintf(stderr, "rknn-inspect: cannot open %s: %s\n", path, strerror(errno));
        return 1;
    }
    ret = rknn_model_parse(data, size, &m);
    if (ret != RKNN_SUCC) {
        fprintf(stderr, "rknn-inspect: %s: not a loadable .rknn file (%s)\n", path,
                error_name(ret));
        free(data);
        return 1;
    }
    snprintf(platform, sizeof platform, "%.*s", (int)m.target_platform.len, m.target_platform.ptr);
    soc = npu_soc_find_platform(platform);
    print_container(path, &m);
    if (m.lowered_size && lower(&m, soc, &lowered) != RKNN_SUCC) {
        fprintf(stderr, "rknn-inspect: %s: its register lists do not lower (%s)\n", path,
                last_error);
        free(data);
        return 1;
    }
    print_tensors(&m);
    print_nodes(&m);
    print_groups(&m);
    print_regcmd_summary(&m, tasks);
    print_relocs(&m, soc, relocs);
    ret = print_memory(data, size);
    print_compat(&m);
    print_words(&m, soc, n_words > UINT32_MAX ? UINT32_MAX : (uint32_t)n_words);
    free(lowered);
    free(data);
    if (ret != RKNN_SUCC) {
        fprintf(stderr,
                "rknn-inspect: %s: the model cannot be loaded on its target platform "
                "(%s)\n",
                path, error_name(ret));
        return 1;
    }
    return 0;
}
