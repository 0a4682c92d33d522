/*
 * test_rknn_model.c - the .rknn parser against the sample models.
 *
 *   test_rknn_model [MODELS_DIR [EXPECTED_FILE]]
 *
 * MODELS_DIR defaults to ../shared/models; if it or EXPECTED_FILE is missing
 * the test fails, naming it. For every *.rknn file the
 * test prints the facts the C parser finds as "key value" lines in the format
 * of tests/tools/rknn_expect.py and, if EXPECTED_FILE (that script's output,
 * computed with shared/tools/rknn_inspect.py) is given, compares the two line
 * sets. Independently of that file it checks facts typed in by hand from
 * docs/format.md and shared/models/README.md, every relocation
 * addend against the regcmd word it patches (the doc's "0 mismatches"), a
 * few hand-made container headers, and copies of the samples crafted to
 * reach one check each (attributes, counts over a limit, 4 GiB of
 * constants, container 2's lowering and steps).
 *
 * Models listed in tests/unsupported_models.txt must fail with exactly the
 * listed error (both sides then print "unsupported"); any other model must
 * parse and be one of the samples with hand-typed checks below.
 */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rknn_api.h"
#include "rknn_model.h"
#include "rknpu_bm.h"
#include "test_unsupported.h"
#include "tool_files.h"

static int failures;

/* The records of node `node` in the group core `core` runs on n_cores
 * cores: the run of records whose op_idx is `node` (count 0 if none), read
 * record by record; RKNN_ERR_PARAM_INVALID for a node past the table. */
static int node_tasks(const rknn_model_view *v, uint32_t n_cores, uint32_t core, uint32_t node,
                      rknn_model_task_range *out)
{
    rknn_model_task_range g;
    rknn_model_task_info t;
    int ret = rknn_model_task_group(v, n_cores, core, &g);

    if (ret != RKNN_SUCC || node >= v->n_nodes)
        return ret != RKNN_SUCC ? ret : RKNN_ERR_PARAM_INVALID;
    out->first = g.first + g.count;
    out->count = 0;
    for (uint32_t i = g.first; i < g.first + g.count; i++) {
        if (rknn_model_task(v, i, &t) != RKNN_SUCC)
            return RKNN_ERR_MODEL_INVALID;
        if (t.op_idx == node && out->count++ == 0)
            out->first = i;
    }
    return RKNN_SUCC;
}

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);                                 \
            printf(__VA_ARGS__);                                                                   \
            printf("\n");                                                                          \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

/* The parser logs every rejection; keep the output readable, count them. */
static int log_lines;
void rknpu_hook_log(rknpu_log_level level, const char *msg)
{
    (void)level;
    unsupported_log(msg);
    log_lines++;
}

/* ---- growable list of output lines (test code may use the heap) ---------- */

typedef struct {
    char **items;
    size_t count, cap;
} line_list;

static void list_add(line_list *l, const char *s)
{
    if (l->count == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 256;
        l->items = realloc(l->items, l->cap * sizeof(*l->items));
        if (!l->items) {
            perror("realloc");
            exit(1);
        }
    }
    l->items[l->count] = malloc(strlen(s) + 1);
    if (!l->items[l->count]) {
        perror("malloc");
        exit(1);
    }
    strcpy(l->items[l->count++], s);
}

static void list_free(line_list *l)
{
    for (size_t i = 0; i < l->count; i++)
        free(l->items[i]);
    free(l->items);
    memset(l, 0, sizeof(*l));
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* ---- line formatting (mirrors rknn_expect.py) ------------------------------ */

typedef struct {
    char buf[65536];
    size_t len;
} text;

static void t_reset(text *t)
{
    t->len = 0;
    t->buf[0] = 0;
}

static void t_add(text *t, const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(t->buf + t->len, sizeof(t->buf) - t->len, fmt, ap);
    va_end(ap);
    if (n > 0)
        t->len += (size_t)n < sizeof(t->buf) - t->len ? (size_t)n : sizeof(t->buf) - t->len - 1;
}

static void t_esc(text *t, const char *p, uint32_t len)
{
    for (uint32_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)p[i];
        if (c >= 0x20 && c <= 0x7e && c != '\\')
            t_add(t, "%c", c);
        else
            t_add(t, "\\x%02x", c);
    }
}

static void t_str(text *t, rknn_fbs_string s)
{
    t_esc(t, s.ptr, s.len);
}

static void t_ints(text *t, const int32_t *v, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        t_add(t, "%s%ld", i ? "," : "", (long)v[i]);
}

static line_list *g_out;
static const char *g_model;

/* Emits "<model> <text>" and resets the text. */
static void emit(text *t)
{
    static char line[sizeof(((text *)0)->buf) + 256];

    snprintf(line, sizeof(line), "%s %s", g_model, t->buf);
    list_add(g_out, line);
    t_reset(t);
}

static void emit_attr_value(text *t, const rknn_model_attr *a)
{
    rknn_model_attr_value e;
    double d;
    int32_t i32;
    int64_t i64;

    for (uint32_t k = 0; k < a->n_elems; k++) {
        if (rknn_model_attr_elem(a, k, &e) != RKNN_SUCC) {
            t_add(t, "<error>");
            return;
        }
        t_add(t, "%s", k ? "," : "");
        switch (e.type) {
        case RKNN_MODEL_ATTR_DOUBLE:
            memcpy(&d, e.data, sizeof(d));
            t_add(t, "%.17g", d);
            break;
        case RKNN_MODEL_ATTR_INT32:
            i32 = (int32_t)rknn_fbs_le32(e.data);
            t_add(t, "%ld", (long)i32);
            break;
        case RKNN_MODEL_ATTR_INT64:
            i64 = (int64_t)rknn_fbs_le64(e.data);
            t_add(t, "%lld", (long long)i64);
            break;
        case RKNN_MODEL_ATTR_BOOL: t_add(t, "%d", e.data[0]); break;
        case RKNN_MODEL_ATTR_STRING:
        case RKNN_MODEL_ATTR_BINARY: t_esc(t, (const char *)e.data, e.size); break;
        default: t_add(t, "?");
        }
    }
}

static void emit_header(const rknn_model_view *v, text *t)
{
    t_add(t, "status ok"), emit(t);
    t_add(t, "container_version %lu", (unsigned long)v->container_version), emit(t);
    t_add(t, "payload %lu %lu", (unsigned long)v->payload_offset, (unsigned long)v->payload_size),
        emit(t);
    t_add(t, "json %lu %lu", (unsigned long)v->json_offset, (unsigned long)v->json_size), emit(t);
    t_add(t, "schema %ld", (long)v->schema_generation), emit(t);
    t_add(t, "npu_family "), t_str(t, v->npu_family), emit(t);
    t_add(t, "target "), t_str(t, v->target_platform), emit(t);
    t_add(t, "compiler_code %lu", (unsigned long)v->compiler_code), emit(t);
    t_add(t, "compiler "), t_str(t, v->compiler), emit(t);
    t_add(t, "source "), t_str(t, v->source_framework), emit(t);
    t_add(t, "input_json "), t_str(t, v->input_json), emit(t);
    t_add(t, "output_json "), t_str(t, v->output_json), emit(t);
    t_add(t, "shape_mode "), t_str(t, v->shape_mode), emit(t);
    t_add(t, "custom_string "), t_str(t, v->custom_string), emit(t);
    t_add(t, "custom_op_types "), t_str(t, v->custom_op_types), emit(t);
    t_add(t, "generator_size %lu", (unsigned long)v->generator.len), emit(t);
}

static void emit_blobs(const rknn_model_view *v, text *t)
{
    const uint8_t *data;
    uint32_t size;

    t_add(t, "blobs %lu", (unsigned long)v->n_blobs), emit(t);
    for (uint32_t i = 0; i < v->n_blobs; i++) {
        CHECK(rknn_model_blob(v, i, &data, &size) == RKNN_SUCC, "blob %lu", (unsigned long)i);
        t_add(t, "blob %lu size %lu", (unsigned long)i, (unsigned long)size), emit(t);
    }
}

static void emit_tensors(const rknn_model_view *v, text *t)
{
    rknn_model_tensor_info ti;
    float f;
    int32_t zp;

    t_add(t, "tensors %lu", (unsigned long)v->n_tensors), emit(t);
    for (uint32_t i = 0; i < v->n_tensors; i++) {
        if (rknn_model_tensor(v, i, &ti) != RKNN_SUCC) {
            CHECK(0, "tensor %lu does not decode", (unsigned long)i);
            continue;
        }
        t_add(t, "tensor %lu name ", (unsigned long)i), t_str(t, ti.name), emit(t);
        t_add(t, "tensor %lu kind %d dtype %d layout %d size %lu offset %lu compressed %d blob %lu",
              (unsigned long)i, ti.kind, ti.dtype, ti.layout_class, (unsigned long)ti.size,
              (unsigned long)ti.arena_offset, ti.compressed, (unsigned long)ti.blob_index),
            emit(t);
        t_add(t, "tensor %lu shape ", (unsigned long)i), t_ints(t, ti.dims, ti.n_dims);
        t_add(t, " native "), t_ints(t, ti.native_dims, ti.n_native_dims), emit(t);
        t_add(t, "tensor %lu quant ", (unsigned long)i), t_str(t, ti.quant_method);
        t_add(t, " "), t_str(t, ti.quant_dtype), t_add(t, " scale ");
        for (uint32_t k = 0; k < ti.n_scales; k++) {
            CHECK(rknn_model_tensor_scale(&ti, k, &f) == RKNN_SUCC, "scale");
            t_add(t, "%s%.9g", k ? "," : "", (double)f);
        }
        t_add(t, " zp ");
        for (uint32_t k = 0; k < ti.n_zero_points; k++) {
            CHECK(rknn_model_tensor_zero_point(&ti, k, &zp) == RKNN_SUCC, "zp");
            t_add(t, "%s%ld", k ? "," : "", (long)zp);
        }
        emit(t);
        if (ti.data)
            t_add(t, "tensor %lu data %lu", (unsigned long)i, (unsigned long)ti.data_size), emit(t);
    }
    t_add(t, "arena %llu", (unsigned long long)v->arena_size), emit(t);
}

static void emit_index_list(text *t, const rknn_model_node_info *n, int outputs)
{
    uint32_t count = outputs ? n->n_outputs : n->n_inputs, idx;

    for (uint32_t k = 0; k < count; k++) {
        int ret = outputs ? rknn_model_node_output(n, k, &idx) : rknn_model_node_input(n, k, &idx);
        CHECK(ret == RKNN_SUCC, "node io %lu", (unsigned long)k);
        t_add(t, "%s%lu", k ? "," : "", (unsigned long)idx);
    }
}

static void emit_nodes(const rknn_model_view *v, text *t)
{
    rknn_model_node_info n;
    rknn_model_attr a;

    t_add(t, "nodes %lu", (unsigned long)v->n_nodes), emit(t);
    for (uint32_t i = 0; i < v->n_nodes; i++) {
        if (rknn_model_node(v, i, &n) != RKNN_SUCC) {
            CHECK(0, "node %lu does not decode", (unsigned long)i);
            continue;
        }
        t_add(t, "node %lu op ", (unsigned long)i), t_str(t, n.op_type);
        t_add(t, " exec %d name ", n.executor), t_str(t, n.name), emit(t);
        t_add(t, "node %lu inputs ", (unsigned long)i), emit_index_list(t, &n, 0);
        t_add(t, " outputs "), emit_index_list(t, &n, 1), emit(t);
        t_add(t, "node %lu tasks_per_slot ", (unsigned long)i);
        for (uint32_t s = 0; s < n.n_core_slots; s++)
            t_add(t, "%s%lu", s ? "," : "", (unsigned long)n.tasks_per_slot[s]);
        emit(t);
        for (uint32_t k = 0; k < n.n_attrs; k++) {
            if (rknn_model_node_attr(&n, k, &a) != RKNN_SUCC) {
                CHECK(0, "node %lu attr %lu", (unsigned long)i, (unsigned long)k);
                continue;
            }
            t_add(t, "node %lu attr ", (unsigned long)i), t_str(t, a.name);
            t_add(t, " dtype "), t_str(t, a.dtype);
            t_add(t, " type %d n %lu value ", a.value_type, (unsigned long)a.n_elems);
            emit_attr_value(t, &a), emit(t);
        }
    }
}

static void emit_io(const rknn_model_view *v, text *t)
{
    rknn_model_norm_info n;
    uint32_t idx;
    float f;

    t_add(t, "inputs ");
    for (uint32_t i = 0; i < v->n_inputs; i++)
        if (rknn_model_io(v, 1, i, &idx) == RKNN_SUCC)
            t_add(t, "%s%lu", i ? "," : "", (unsigned long)idx);
    emit(t);
    t_add(t, "outputs ");
    for (uint32_t i = 0; i < v->n_outputs; i++)
        if (rknn_model_io(v, 0, i, &idx) == RKNN_SUCC)
            t_add(t, "%s%lu", i ? "," : "", (unsigned long)idx);
    emit(t);
    t_add(t, "norms %lu", (unsigned long)v->n_norms), emit(t);
    for (uint32_t i = 0; i < v->n_norms; i++) {
        CHECK(rknn_model_norm(v, i, &n) == RKNN_SUCC, "norm %lu", (unsigned long)i);
        t_add(t, "norm %lu mean ", (unsigned long)i);
        for (uint32_t c = 0; c < n.n_channels; c++)
            if (rknn_model_norm_mean(&n, c, &f) == RKNN_SUCC)
                t_add(t, "%s%.9g", c ? "," : "", (double)f);
        t_add(t, " std ");
        for (uint32_t c = 0; c < n.n_channels; c++)
            if (rknn_model_norm_std(&n, c, &f) == RKNN_SUCC)
                t_add(t, "%s%.9g", c ? "," : "", (double)f);
        emit(t);
    }
}

static void emit_tasks(const rknn_model_view *v, text *t)
{
    rknn_model_task_info ti;

    t_add(t, "regcmd %lu words %lu", (unsigned long)v->regcmd_size,
          (unsigned long)v->n_regcmd_words),
        emit(t);
    t_add(t, "tasks %lu", (unsigned long)v->n_tasks), emit(t);
    for (uint32_t i = 0; i < v->n_tasks; i++) {
        CHECK(rknn_model_task(v, i, &ti) == RKNN_SUCC, "task %lu", (unsigned long)i);
        t_add(t, "task %lu op %lu enable 0x%lx int_mask 0x%lx amount %lu regcmd 0x%llx",
              (unsigned long)i, (unsigned long)ti.op_idx, (unsigned long)ti.enable_mask,
              (unsigned long)ti.int_mask, (unsigned long)ti.regcfg_amount,
              (unsigned long long)ti.regcmd_addr),
            emit(t);
    }
    for (uint32_t s = 0; s < v->n_core_slots; s++)
        t_add(t, "task_group %lu first %lu count %lu", (unsigned long)s,
              (unsigned long)v->groups[s].first, (unsigned long)v->groups[s].count),
            emit(t);
}

static void emit_relocs(const rknn_model_view *v, text *t)
{
    rknn_model_reloc_info r;
    uint32_t addend, word;

    t_add(t, "relocs %lu", (unsigned long)v->n_relocs), emit(t);
    for (uint32_t i = 0; i < v->n_relocs; i++) {
        if (rknn_model_reloc(v, i, &r) != RKNN_SUCC) {
            CHECK(0, "reloc %lu does not decode", (unsigned long)i);
            continue;
        }
        t_add(t, "reloc %lu name ", (unsigned long)i), t_str(t, r.tensor_name);
        t_add(t, " tensor %lu entries %lu", (unsigned long)r.tensor_index,
              (unsigned long)r.n_entries),
            emit(t);
        for (uint32_t k = 0; k < r.n_entries; k++) {
            CHECK(rknn_model_reloc_entry(&r, k, &addend, &word) == RKNN_SUCC, "entry");
            t_add(t, "reloc %lu entry %lu addend 0x%lx word %lu", (unsigned long)i,
                  (unsigned long)k, (unsigned long)addend, (unsigned long)word),
                emit(t);
        }
    }
    t_add(t, "reloc_entries %lu", (unsigned long)v->n_reloc_entries), emit(t);
}

static void emit_model(const char *name, const rknn_model_view *v, int parse_ret, line_list *out)
{
    static text t;

    g_out = out;
    g_model = name;
    t_reset(&t);
    if (parse_ret != RKNN_SUCC) {
        t_add(&t, "status invalid"), emit(&t);
        return;
    }
    emit_header(v, &t);
    emit_blobs(v, &t);
    emit_tensors(v, &t);
    emit_nodes(v, &t);
    emit_io(v, &t);
    emit_tasks(v, &t);
    emit_relocs(v, &t);
}

/* The constants packed in blob order (format.md §4.4): each blob's offset
 * there, and the region's size as rknpu_model_mem_requirements gives it. */
static void emit_weights(const rknn_model_view *v, const uint8_t *file, size_t size)
{
    static text t;
    uint32_t *offsets = calloc(v->n_blobs + 1u, sizeof *offsets), blob_size;
    const uint8_t *data;
    rknpu_model_mem need;
    int ret = offsets ? rknn_model_blob_offsets(v, offsets) : RKNN_ERR_MALLOC_FAIL;

    t_reset(&t);
    CHECK(ret == RKNN_SUCC, "blob offsets: %d", ret);
    for (uint32_t b = 0; ret == RKNN_SUCC && b < v->n_blobs; b++) {
        int lut = 0; /* a LUT blob stays out (format.md §4.3) */
        for (uint32_t i = 0; i < v->n_lut_blobs; i++)
            lut |= v->lut_blobs[i] == b;
        if (lut || b == v->regcmd_blob || b == v->task_blob ||
            rknn_model_blob(v, b, &data, &blob_size) != RKNN_SUCC || blob_size == 0)
            continue;
        t_add(&t, "weights blob %lu offset %lu", (unsigned long)b, (unsigned long)offsets[b]),
            emit(&t);
    }
    free(offsets);
    ret = rknpu_model_mem_requirements(file, size, &need);
    CHECK(ret == RKNN_SUCC, "mem requirements: %d", ret);
    if (ret == RKNN_SUCC)
        t_add(&t, "weight_bytes %lu", (unsigned long)need.weight_bytes), emit(&t);
}

/* ---- facts typed by hand from the docs ------------------------------------ */

static int str_is(rknn_fbs_string s, const char *want)
{
    return s.len == strlen(want) && memcmp(s.ptr, want, s.len) == 0;
}

/* Every relocation addend equals the value field (bits 47..16) of the word it
 * patches (format.md §0/§4.3: "0 mismatches" on all samples). */
static void check_reloc_addends(const char *name, const rknn_model_view *v)
{
    rknn_model_reloc_info r;
    uint32_t addend, word, bad = 0, total = 0;

    for (uint32_t i = 0; i < v->n_relocs; i++) {
        if (rknn_model_reloc(v, i, &r) != RKNN_SUCC)
            continue;
        for (uint32_t k = 0; k < r.n_entries; k++) {
            if (rknn_model_reloc_entry(&r, k, &addend, &word) != RKNN_SUCC)
                continue;
            uint64_t w = rknn_fbs_le64(v->regcmd + (size_t)word * 8);
            bad += (uint32_t)((w >> 16) & 0xffffffffu) != addend;
            total++;
        }
    }
    CHECK(bad == 0 && total == v->n_reloc_entries, "%s: %lu of %lu addends mismatch", name,
          (unsigned long)bad, (unsigned long)total);
}

/* Addends of the "input" relocation of the RK3588 toy model (format.md §4.3). */
static void check_input_slices(const rknn_model_view *v)
{
    static const uint32_t want[] = {0, 0x5e80, 0x3f00, 0x7f80};
    rknn_model_reloc_info r;
    uint32_t idx, addend, word, seen = 0;

    for (uint32_t i = 0; i < v->n_relocs; i++) {
        if (rknn_model_reloc(v, i, &r) != RKNN_SUCC || !str_is(r.tensor_name, "input"))
            continue;
        CHECK(r.n_entries == 6, "input reloc entries %lu", (unsigned long)r.n_entries);
        CHECK(rknn_model_find_tensor(v, "input", 5, &idx) == RKNN_SUCC && idx == r.tensor_index,
              "input tensor index");
        for (uint32_t k = 0; k < r.n_entries; k++) {
            if (rknn_model_reloc_entry(&r, k, &addend, &word) != RKNN_SUCC)
                continue;
            for (uint32_t j = 0; j < 4; j++)
                if (addend == want[j])
                    seen |= 1u << j;
        }
    }
    CHECK(seen == 0xf, "input addends 0/0x5e80/0x3f00/0x7f80 seen mask 0x%lx", (unsigned long)seen);
}

static void check_rk3588_multiple_input(const rknn_model_view *v)
{
    static const rknn_model_task_range want[6] = {{0, 2}, {2, 3}, {5, 3}, {8, 3}, {11, 3}, {14, 3}};
    rknn_model_tensor_info out;
    rknn_model_task_range g;
    uint32_t idx;
    float scale;
    int32_t zp;

    CHECK(v->file_size == 31628, "size %lu", (unsigned long)v->file_size);
    CHECK(v->payload_offset == 64 && v->payload_size == 30208, "payload");
    CHECK(v->json_offset == 30280 && v->json_size == 1348, "json %lu %lu",
          (unsigned long)v->json_offset, (unsigned long)v->json_size);
    CHECK(v->fbs.model.pos == 0x50 && memcmp(v->fbs.fb.data + 4, "RKNN", 4) == 0, "root 0x%lx",
          (unsigned long)v->fbs.model.pos);
    CHECK(v->n_tensors == 13 && v->n_nodes == 5, "%lu tensors %lu nodes",
          (unsigned long)v->n_tensors, (unsigned long)v->n_nodes);
    CHECK(v->n_tasks == 17 && v->n_core_slots == 6 && v->max_cores == 3, "tasks");
    CHECK(memcmp(v->groups, want, sizeof(want)) == 0, "task groups");
    CHECK(rknn_model_task_group(v, 3, 2, &g) == RKNN_SUCC && g.first == 14 && g.count == 3,
          "3-core group of core 2");
    CHECK(rknn_model_task_group(v, 1, 0, &g) == RKNN_SUCC && g.first == 0 && g.count == 2,
          "1-core group");
    CHECK(rknn_model_task_group(v, 4, 0, &g) == RKNN_ERR_PARAM_INVALID, "4 cores");
    CHECK(v->n_relocs == 10 && v->n_reloc_entries == 70, "relocs %lu/%lu",
          (unsigned long)v->n_relocs, (unsigned long)v->n_reloc_entries);
    CHECK(str_is(v->target_platform, "rk3588"), "target");
    CHECK(str_is(v->npu_family, "RKNPU v2"), "family");
    CHECK(v->compiler_code == 10602, "compiler code %lu", (unsigned long)v->compiler_code);
    CHECK(v->n_blobs == 9 && v->regcmd_size == 13696 && v->n_regcmd_words == 1712, "blobs");
    CHECK(v->arena_size == 1114112, "arena %llu", (unsigned long long)v->arena_size);
    CHECK(v->n_inputs == 2 && v->n_outputs == 1 && v->n_norms == 2, "io");
    CHECK(v->custom_string.len == 0 && v->custom_op_types.len == 0, "no custom string");
    /* Records typed from the inspector's task table (shared/tools): node 2
     * (Conv) then node 3 (ConvAdd, a DPU and a PPU task) on every core. */
    CHECK(node_tasks(v, 1, 0, 2, &g) == RKNN_SUCC && g.first == 0 && g.count == 1,
          "1-core node 2: %lu+%lu", (unsigned long)g.first, (unsigned long)g.count);
    CHECK(node_tasks(v, 2, 1, 3, &g) == RKNN_SUCC && g.first == 6 && g.count == 2,
          "2-core c1 node 3: %lu+%lu", (unsigned long)g.first, (unsigned long)g.count);
    CHECK(node_tasks(v, 3, 2, 3, &g) == RKNN_SUCC && g.first == 15 && g.count == 2,
          "3-core c2 node 3: %lu+%lu", (unsigned long)g.first, (unsigned long)g.count);
    CHECK(node_tasks(v, 3, 0, 0, &g) == RKNN_SUCC && g.count == 0, "input node");
    CHECK(node_tasks(v, 3, 0, 5, &g) == RKNN_ERR_PARAM_INVALID, "node 5 of 5");
    CHECK(rknn_model_task_links_to(v, 0, 1) == 1 && rknn_model_task_links_to(v, 1, 2) == 0 &&
              rknn_model_task_links_to(v, 3, 4) == 1,
          "chain links");
    /* README: output "8" [1,8,128,128]; inspector: scale 4.142374515533447, zp 20. */
    CHECK(rknn_model_io(v, 0, 0, &idx) == RKNN_SUCC && idx == 8, "output index");
    CHECK(rknn_model_tensor(v, 8, &out) == RKNN_SUCC, "tensor 8");
    CHECK(str_is(out.name, "8") && out.kind == RKNN_MODEL_KIND_OUTPUT && out.n_dims == 4 &&
              out.dims[1] == 8 && out.dims[2] == 128,
          "output tensor");
    CHECK(rknn_model_tensor_scale(&out, 0, &scale) == RKNN_SUCC && scale > 4.14237f &&
              scale < 4.14238f,
          "scale %.9g", (double)scale);
    CHECK(rknn_model_tensor_zero_point(&out, 0, &zp) == RKNN_SUCC && zp == 20, "zp");
    CHECK(rknn_model_tensor_scale(&out, 1, &scale) == RKNN_ERR_PARAM_INVALID, "scale index");
    check_input_slices(v);
}

static void check_rk3566_multiple_input(const rknn_model_view *v)
{
    CHECK(v->n_tensors == 14 && v->n_nodes == 5 && v->n_tasks == 10, "counts");
    CHECK(v->n_core_slots == 1 && v->max_cores == 1 && v->groups[0].first == 0 &&
              v->groups[0].count == 10,
          "one group of 10");
    CHECK(v->n_relocs == 11 && v->n_reloc_entries == 31, "relocs");
    CHECK(str_is(v->target_platform, "rk3566") && str_is(v->npu_family, "RKNPU lite"), "target");
    CHECK(v->regcmd_size == 7232, "regcmd %lu", (unsigned long)v->regcmd_size);
}

static void check_dual_residual(const rknn_model_view *v, int rk3588)
{
    rknn_model_node_info n;
    rknn_model_attr a;
    rknn_model_attr_value e;
    double alpha = 0;

    CHECK(v->compiler_code == 10601, "compiler %lu", (unsigned long)v->compiler_code);
    CHECK(v->n_nodes == 7 && v->n_tasks == (rk3588 ? 17u : 2u), "counts");
    CHECK(v->n_reloc_entries == (rk3588 ? 46u : 6u), "reloc entries %lu",
          (unsigned long)v->n_reloc_entries);
    CHECK(str_is(v->custom_op_types, "cstDualResidual"), "custom op types");
    CHECK(rknn_model_node(v, 4, &n) == RKNN_SUCC, "node 4");
    CHECK(str_is(n.op_type, "cstDualResidual") && n.executor == 0 && n.n_inputs == 2 &&
              n.n_outputs == 2,
          "custom node");
    CHECK(n.n_attrs == 1, "attrs %lu", (unsigned long)n.n_attrs);
    /* README: attribute alpha = 0.5. */
    CHECK(rknn_model_node_attr_find(&n, "alpha", &a) == RKNN_SUCC && str_is(a.dtype, "f") &&
              a.value_type == RKNN_MODEL_ATTR_DOUBLE && a.n_elems == 1,
          "alpha");
    CHECK(rknn_model_attr_elem(&a, 0, &e) == RKNN_SUCC && e.size == 8, "alpha value");
    if (e.size == 8)
        memcpy(&alpha, e.data, sizeof(alpha));
    CHECK(alpha == 0.5, "alpha %g", alpha);
    CHECK(rknn_model_node_attr_find(&n, "beta", &a) == RKNN_ERR_PARAM_INVALID, "no beta");
    /* Output operators keep 16 non-BSON bytes in slot 9: no attributes. */
    CHECK(rknn_model_node(v, 5, &n) == RKNN_SUCC && n.n_attrs == 0 && n.attrs == NULL, "out op");
}

/* Hand-made headers: each must be rejected with RKNN_ERR_MODEL_INVALID. */
static void check_headers(void)
{
    uint8_t h[96];
    rknn_model_view v;
    int before;

    memset(h, 0, sizeof(h));
    memcpy(h, "RKNN", 4);
    for (uint32_t ver = 1; ver <= 7; ver++) {
        if (ver == 6 || ver == 4) /* the versions it reads */
            continue;
        h[8] = (uint8_t)ver;
        before = log_lines;
        CHECK(rknn_model_parse(h, sizeof(h), &v) == RKNN_ERR_MODEL_INVALID, "version %lu",
              (unsigned long)ver);
        CHECK(log_lines > before, "version %lu not logged", (unsigned long)ver);
    }
    memcpy(h, "CYPTRKNN", 8);
    before = log_lines;
    CHECK(rknn_model_parse(h, sizeof(h), &v) == RKNN_ERR_MODEL_INVALID, "encrypted");
    CHECK(log_lines > before, "encrypted not logged");
    memset(h, 0, sizeof(h));
    memcpy(h, "RKNN", 4);
    h[8] = 6;
    h[16] = 16; /* a 16-byte all-zero payload: no "RKNN" FlatBuffer identifier */
    CHECK(rknn_model_parse(h, sizeof(h), &v) == RKNN_ERR_MODEL_INVALID, "garbage payload");
    h[16] = 200; /* payload larger than the file */
    CHECK(rknn_model_parse(h, sizeof(h), &v) == RKNN_ERR_MODEL_INVALID, "payload too big");
    CHECK(rknn_model_parse(h, 20, &v) == RKNN_ERR_MODEL_INVALID, "truncated");
    CHECK(rknn_model_parse(NULL, 10, &v) == RKNN_ERR_PARAM_INVALID, "NULL data");
    CHECK(rknn_model_parse(h, sizeof(h), NULL) == RKNN_ERR_PARAM_INVALID, "NULL view");
    memset(&v, 0, sizeof(v));
    CHECK(rknn_model_tensor(&v, 0, NULL) == RKNN_ERR_PARAM_INVALID, "empty view");
}

/* ---- driver ------------------------------------------------------------------ */

/* The six task groups of an RK3588 model (1 core; 2 cores c0, c1; 3 cores
 * c0, c1, c2) are want[0..5]. */
static void check_rk3588_groups(const rknn_model_view *v, const rknn_model_task_range *want)
{
    rknn_model_task_range g;

    for (uint32_t c = 1, s = 0; c <= 3; c++)
        for (uint32_t k = 0; k < c; k++, s++)
            CHECK(rknn_model_task_group(v, c, k, &g) == RKNN_SUCC && g.first == want[s].first &&
                      g.count == want[s].count,
                  "group %lu: %lu+%lu", (unsigned long)s, (unsigned long)g.first,
                  (unsigned long)g.count);
}

/* PP-OCRv4 det (RK3588, toolkit 2.3.0): facts typed from the Python
 * inspector (shared/tools/rknn_inspect.py) and its task table. */
static void check_ppocrv4_det(const rknn_model_view *v)
{
    static const rknn_model_task_range want[6] = {{0, 383},   {383, 394},  {777, 161},
                                                  {938, 382}, {1320, 147}, {1467, 147}};
    rknn_model_tensor_info t;
    rknn_model_task_range g = {0, 0};
    uint32_t idx;

    CHECK(v->n_tensors == 415 && v->n_nodes == 170 && v->n_tasks == 1614, "counts");
    CHECK(rknn_model_io(v, 1, 0, &idx) == RKNN_SUCC && idx == 236, "input 236");
    CHECK(rknn_model_io(v, 0, 0, &idx) == RKNN_SUCC && idx == 410, "output 410");
    check_rk3588_groups(v, want);
    /* Node 2 (ConvHardSwish): slot-10 counts [7, 8, 0, 8, 0, 0]; on one core
     * its 8 records are tasks 22..29, the first loading the LUT. */
    CHECK(node_tasks(v, 1, 0, 2, &g) == RKNN_SUCC && g.first == 22 && g.count == 8,
          "1-core node 2: %lu+%lu", (unsigned long)g.first, (unsigned long)g.count);
    CHECK(node_tasks(v, 2, 0, 2, &g) == RKNN_SUCC && g.first == 395 && g.count == 8,
          "2-core c0 node 2: %lu+%lu", (unsigned long)g.first, (unsigned long)g.count);
    CHECK(node_tasks(v, 2, 1, 2, &g) == RKNN_SUCC && g.count == 0, "2-core c1 node 2");
    /* On core 0 of two, node 1's last record links past nodes 2 and 3 to
     * node 4's first (task 404), not to the next record. */
    CHECK(rknn_model_task_links_to(v, 394, 404) == 1 && rknn_model_task_links_to(v, 394, 395) == 0,
          "multi-core chain links");
    CHECK(rknn_model_task_links_to(v, 21, 22) == 1, "single-core chain runs on");
    CHECK(rknn_model_tensor(v, 3, &t) == RKNN_SUCC && t.kind == RKNN_MODEL_KIND_LUT &&
              t.data_size == 8776,
          "tensor 3 HardSwish LUT");
    CHECK(rknn_model_tensor(v, 183, &t) == RKNN_SUCC && t.kind == RKNN_MODEL_KIND_HELPER_CONST &&
              t.data != NULL && t.size == 128,
          "tensor 183 helper constant with a blob");
    CHECK(rknn_model_tensor(v, 10, &t) == RKNN_SUCC && t.n_native_dims == 12, "12-entry shape");
}

/* YOLOv8n (RK3566, toolkit 1.5, container 4): facts from shared/models/README.md
 * and format.md §5.1 (245 register lists; 127 of them name the SiLU or
 * Sigmoid LUT, and each gets the LUT's two loading tasks before it, as
 * Rockchip's runtime submits: 499 tasks; its jobs end where an output
 * operator stands between two nodes: 6 steps). */
static void check_yolov8n_v4(const rknn_model_view *v)
{
    rknn_model_task_range g;
    rknn_model_task_info le, lo, conv, last;
    rknn_model_tensor_info lut;
    rknn_model_step step;
    uint32_t idx, node = 0, steps = 0, counts[6] = {0};

    CHECK(v->container_version == 4 && v->schema_generation == 1, "container 4, schema 1");
    CHECK(v->n_tensors == 486 && v->n_nodes == 102 && v->n_blobs == 487, "counts");
    CHECK(v->n_tasks == 245 + 2 * 127 && v->max_cores == 1 && v->n_core_slots == 1, "tasks %lu",
          (unsigned long)v->n_tasks);
    CHECK(rknn_model_io(v, 1, 0, &idx) == RKNN_SUCC && idx == 135, "input 135");
    CHECK(rknn_model_io(v, 0, 0, &idx) == RKNN_SUCC && idx == 237, "output 237");
    CHECK(rknn_model_task_group(v, 1, 0, &g) == RKNN_SUCC && g.first == 0 && g.count == 499,
          "one group");
    /* node 1 (the first ConvExSwish, 16 tasks): each task's two LUT loads,
     * then its convolution */
    CHECK(node_tasks(v, 1, 0, 1, &g) == RKNN_SUCC && g.first == 0 && g.count == 48, "node 1 tasks");
    CHECK(rknn_model_task(v, 0, &le) == RKNN_SUCC && le.enable_mask == 0x18 &&
              le.regcfg_amount == 9344 / 8 / 2 && le.int_mask == 0x300,
          "task 0 loads the LUT's first table");
    CHECK(rknn_model_task(v, 1, &lo) == RKNN_SUCC && lo.enable_mask == 0x18 &&
              lo.regcfg_amount == 9344 / 8 / 2 && rknn_model_task_links_to(v, 0, 1),
          "task 1 loads its second table");
    CHECK(rknn_model_task(v, 2, &conv) == RKNN_SUCC && conv.enable_mask == 0x1F &&
              conv.regcfg_amount == 132 && rknn_model_task_links_to(v, 1, 2),
          "task 2 is the convolution, chained to the loads");
    CHECK(rknn_model_task(v, 3, &le) == RKNN_SUCC && le.enable_mask == 0x18 &&
              rknn_model_task_links_to(v, 2, 3),
          "task 3 loads the LUT again for the node's next convolution");
    CHECK(rknn_model_task(v, 498, &last) == RKNN_SUCC && last.op_idx == 100 &&
              rknn_model_task_links_to(v, 435, 436),
          "one chain to the last task");
    {
        static const uint8_t zeros[16];
        CHECK(memcmp(v->regcmd + last.regcmd_addr + (size_t)last.regcfg_amount * 8, zeros, 16) == 0,
              "the last tail starts with two zero words (the vendor's chain end)");
    }
    while (node < v->n_nodes && steps < 7 &&
           rknn_model_next_step(v, 1, &node, v->n_nodes, &step) == RKNN_SUCC &&
           step.core[0].count > 0)
        if (steps < 6)
            counts[steps++] = step.core[0].count;
        else
            steps++;
    CHECK(steps == 6 && counts[0] == 436 && counts[1] == 9 && counts[2] == 7 && counts[3] == 9 &&
              counts[4] == 14 && counts[5] == 24,
          "6 steps of 436, 9, 7, 9, 14, 24 tasks: %lu steps, %lu %lu %lu %lu %lu %lu",
          (unsigned long)steps, (unsigned long)counts[0], (unsigned long)counts[1],
          (unsigned long)counts[2], (unsigned long)counts[3], (unsigned long)counts[4],
          (unsigned long)counts[5]);
    CHECK(rknn_model_tensor(v, 2, &lut) == RKNN_SUCC && lut.kind == RKNN_MODEL_KIND_LUT &&
              lut.data_size == 9344,
          "tensor 2 exSwish LUT");
}

/* Container 4: one mutated copy of the file must be refused at parse time
 * with RKNN_ERR_MODEL_INVALID and a log line saying why (format.md §5.1). */
static void v4_refused(const uint8_t *data, size_t size, size_t off, const void *bytes, size_t n,
                       const char *why)
{
    uint8_t *copy = malloc(size);
    rknn_model_view v;
    int ret;

    if (!copy || off + n > size) {
        CHECK(0, "v4 mutation at %lu: cannot place it", (unsigned long)off);
        free(copy);
        return;
    }
    memcpy(copy, data, size);
    memcpy(copy + off, bytes, n);
    unsupported_log_clear();
    ret = rknn_model_parse(copy, size, &v);
    CHECK(ret == RKNN_ERR_MODEL_INVALID && strstr(unsupported_logged, why),
          "v4 mutation at %lu: parse returned %d, logged '%s', want '%s'", (unsigned long)off, ret,
          unsupported_logged, why);
    free(copy);
}

/* The first entry of a kind-`kind` register list writing register `reg`;
 * its file offset, or 0. */
static size_t v4_entry(const uint8_t *data, const rknn_model_view *v, int8_t kind, uint16_t reg)
{
    for (uint32_t i = 0; i < v->n_tensors; i++) {
        rknn_model_tensor_info t;
        if (rknn_model_tensor(v, i, &t) != RKNN_SUCC || t.kind != kind || !t.data)
            continue;
        for (uint32_t e = 0; e + 8 <= t.data_size; e += 8)
            if (rknn_fbs_le16(t.data + e + 2) == reg)
                return (size_t)(t.data + e - data);
    }
    return 0;
}

/* The first LUT_ACCESS_CFG entry of a LUT tensor's list that writes a
 * table (bit 17); its file offset, or 0. */
static size_t v4_lut_write(const uint8_t *data, const rknn_model_view *v)
{
    for (uint32_t i = 0; i < v->n_tensors; i++) {
        rknn_model_tensor_info t;
        if (rknn_model_tensor(v, i, &t) != RKNN_SUCC || t.kind != RKNN_MODEL_KIND_LUT || !t.data)
            continue;
        for (uint32_t e = 0; e + 8 <= t.data_size; e += 8)
            if (rknn_fbs_le16(t.data + e + 2) == 0x4100 &&
                (rknn_fbs_le32(t.data + e + 4) >> 17 & 1))
                return (size_t)(t.data + e - data);
    }
    return 0;
}

/* What the container-4 checks refuse, each on one entry of the real file. */
static void check_v4_refusals(const uint8_t *data, size_t size, const rknn_model_view *v)
{
    static const uint8_t far_value[4] = {0xF0, 0xFF, 0xFF, 0x7F};
    static const uint8_t nonzero[2] = {1, 0}, pc_reg[2] = {0x10, 0x00}, ddma_reg[2] = {0, 0x80};
    static const uint8_t ew_base_0x40[6] = {0x38, 0x50, 0x40, 0, 0, 0}; /* reg, value */
    static const uint8_t cna_reg[2] = {0x04, 0x10};
    static const char split[] = "\x05\0\0\0Split", splix[] = "\x05\0\0\0Splix";
    size_t feature = v4_entry(data, v, RKNN_MODEL_KIND_REGLIST_OLD, 0x1070);
    size_t lut = v4_entry(data, v, RKNN_MODEL_KIND_LUT, 0x4004);
    size_t lut_write = v4_lut_write(data, v);
    static const uint8_t zero[4] = {0};
    const uint8_t *op = NULL;

    CHECK(feature && lut && lut_write,
          "v4: a CNA_FEATURE_DATA_ADDR entry, a LUT entry, a LUT_ACCESS_CFG write");
    if (!feature || !lut || !lut_write)
        return;
    /* an address past every tensor; the u16 that must be 0; a PC register */
    v4_refused(data, size, feature + 4, far_value, 4, "not inside the tensor its rule names");
    v4_refused(data, size, feature, nonzero, 2, "the first 16 bits are not 0");
    v4_refused(data, size, feature + 2, pc_reg, 2, "not a compute-unit register");
    v4_refused(data, size, feature + 2, ddma_reg, 2, "not a compute-unit register"); /* no target */
    /* a convolution has no rule for the EW operand's address: non-zero is refused */
    v4_refused(data, size, feature + 2, ew_base_0x40, 6, "an address register with no rule");
    v4_refused(data, size, lut + 2, cna_reg, 2, "a LUT may only write DPU registers");
    /* a LUT load must write its table (LUT_ACCESS_CFG bit 17): relocation
     * points only such loads' dummy op at the stream, others would DMA to 0 */
    v4_refused(data, size, lut_write + 4, zero, 4, "does not set DPU_LUT_ACCESS_CFG to write");
    for (size_t i = 0; i + sizeof split - 1 <= size && !op; i++)
        if (memcmp(data + i, split, sizeof split - 1) == 0)
            op = data + i;
    CHECK(op != NULL, "v4: the op type string Split");
    if (op)
        v4_refused(data, size, (size_t)(op - data), splix, sizeof splix - 1,
                   "op type \"Splix\" on 1 core(s) in a schema-1 container is not supported");
}

/* The relocations of a view as sorted "tensor register addend" lines: what
 * the stream addresses, whatever the word indices. */
static void reloc_facts(const rknn_model_view *v, line_list *out)
{
    rknn_model_reloc_info r;
    uint32_t addend, word;
    char line[160];

    for (uint32_t i = 0; i < v->n_relocs; i++) {
        if (rknn_model_reloc(v, i, &r) != RKNN_SUCC)
            continue;
        for (uint32_t k = 0; k < r.n_entries; k++)
            if (rknn_model_reloc_entry(&r, k, &addend, &word) == RKNN_SUCC) {
                snprintf(line, sizeof line, "%.*s %04x %08lx", (int)r.tensor_name.len,
                         r.tensor_name.ptr,
                         (unsigned)(rknn_fbs_le64(v->regcmd + (size_t)word * 8) & 0xffffu),
                         (unsigned long)addend);
                list_add(out, line);
            }
    }
    qsort(out->items, out->count, sizeof(char *), cmp_str);
}

/* Whether two sorted lists hold the same lines, repeats aside. */
static int same_distinct_lines(const line_list *a, const line_list *b)
{
    size_t i = 0, j = 0;

    while (i < a->count && j < b->count) {
        if (strcmp(a->items[i], b->items[j]) != 0)
            return 0;
        while (++i < a->count && strcmp(a->items[i], a->items[i - 1]) == 0)
            ;
        while (++j < b->count && strcmp(b->items[j], b->items[j - 1]) == 0)
            ;
    }
    return i == a->count && j == b->count;
}

/* Register `reg` of target `target` in record t's list; ~0 if absent. */
static uint32_t v2_task_word(const rknn_model_view *v, uint32_t t, uint16_t target, uint16_t reg)
{
    rknn_model_task_info ti;
    uint32_t at;

    if (rknn_model_task(v, t, &ti) != RKNN_SUCC)
        return ~0u;
    at = (uint32_t)(ti.regcmd_addr / 8);
    for (uint32_t k = 0; k < ti.regcfg_amount + 4; k++) {
        uint64_t w = rknn_fbs_le64(v->regcmd + (size_t)(at + k) * 8);
        if ((uint16_t)(w >> 48) == target && (uint16_t)w == reg)
            return (uint32_t)(w >> 16);
    }
    return ~0u;
}

/* The words Rockchip's runtime submits for the toy model (its register
 * dumps under scripts/vendor-diff.sh): CNA (target 0x0201) and CORE
 * (0x0801) S_POINTER 0xE with the core's index in bits 31:28, and in a
 * linked PC amount (0x0101, 0x0014) the chain's core count less one in
 * bits 17:16. */
static void check_v2_core_words(const rknn_model_view *v)
{
    static const struct {
        uint32_t record;
        uint16_t target, reg;
        uint32_t value;
    } want[] = {
        {0, 0x0201, 0x1004, 0x0000000e},  {0, 0x0801, 0x3004, 0x0000000e},
        {2, 0x0201, 0x1004, 0x1000000e},  {2, 0x0801, 0x3004, 0x1000000e},
        {4, 0x0201, 0x1004, 0x2000000e},  {5, 0x0801, 0x3004, 0x2000000e},
        {9, 0x0201, 0x1004, 0x1000000e},  {19, 0x0801, 0x3004, 0x2000000e},
        {0, 0x0101, 0x0014, 0x0000003f},  {6, 0x0101, 0x0014, 0x0001003f},
        {7, 0x0101, 0x0014, 0x0001000e},  {18, 0x0101, 0x0014, 0x0002003f},
        {20, 0x0101, 0x0014, 0x00000000},
    };

    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        uint32_t got = v2_task_word(v, want[i].record, want[i].target, want[i].reg);
        CHECK(got == want[i].value, "record %lu register %04x:%04x: 0x%08lx, the vendor's 0x%08lx",
              (unsigned long)want[i].record, want[i].target, want[i].reg, (unsigned long)got,
              (unsigned long)want[i].value);
    }
}

/* The toy model from toolkit 1.3.4 (container 2, RK3588, compressed
 * weights; format.md §5.2), lowered: the tasks and groups of the v6 build of
 * the network (`v6`), the single-core group built once per core (records
 * 0-1, 2-3, 4-5: the vendor's submissions), and the v6 file's relocations
 * (those of the single-core group three times). */
static void check_multiple_input_v2(const rknn_model_view *v, const rknn_model_view *v6)
{
    static const rknn_model_task_range want[6] = {{0, 2},  {6, 3},  {9, 3},
                                                  {12, 3}, {15, 3}, {18, 3}};
    rknn_model_task_info conv, sync;
    rknn_model_tensor_info w;
    line_list a = {0}, b = {0};
    int same;

    CHECK(v->container_version == 2 && v->schema_generation == 1, "container 2, schema 1");
    CHECK(v->n_tensors == 29 && v->n_nodes == 5 && v->n_blobs == 30, "counts");
    CHECK(v->n_tasks == 21 && v->max_cores == 3 && v->n_core_slots == 6 &&
              v->single_core_copies == 3,
          "tasks %lu", (unsigned long)v->n_tasks);
    check_rk3588_groups(v, want);
    /* all 124 entries, CNA and CORE S_POINTER with the core's index */
    CHECK(rknn_model_task(v, 0, &conv) == RKNN_SUCC && conv.enable_mask == 0x1d &&
              conv.regcfg_amount == 124 && conv.int_mask == 0x300 && conv.op_idx == 2,
          "task 0: the 3-channel convolution");
    CHECK(rknn_model_task(v, 8, &sync) == RKNN_SUCC && sync.enable_mask == 0x60 &&
              sync.regcfg_amount == 26 && sync.int_mask == 0xc00 && sync.op_idx == 3,
          "task 8: the 2-core configuration's closing PPU task");
    CHECK(rknn_model_task_links_to(v, 0, 1) == 1 && rknn_model_task_links_to(v, 1, 2) == 0 &&
              rknn_model_task_links_to(v, 2, 3) == 1 && rknn_model_task_links_to(v, 5, 6) == 0 &&
              rknn_model_task_links_to(v, 7, 8) == 1,
          "one chain per core group and per copy");
    check_v2_core_words(v);
    CHECK(rknn_model_tensor(v, 2, &w) == RKNN_SUCC && w.compressed && w.data_size == 1408,
          "tensor 2: compressed weights, 1408 bytes");
    reloc_facts(v, &a);
    reloc_facts(v6, &b);
    same = a.count == 90 && b.count == 70 && same_distinct_lines(&a, &b);
    CHECK(same,
          "the v6 file's 70 relocations (tensor, register, addend), the single-core "
          "group's 10 three times: %lu built",
          (unsigned long)a.count);
    list_free(&a);
    list_free(&b);
}

/* What the container-2 checks refuse, each on one entry of the real file:
 * compressed weights whose stream sizes reach past the weight tensor, or
 * in a layout not known (format.md §5.2). */
static void check_v2_refusals(const uint8_t *data, size_t size, const rknn_model_view *v)
{
    static const uint8_t big[4] = {0x40, 0, 0, 0}, regnum[4] = {0x55, 0x55, 0x55, 0x15};
    size_t amount = v4_entry(data, v, RKNN_MODEL_KIND_REGLIST_OLD, 0x117c);
    size_t num = v4_entry(data, v, RKNN_MODEL_KIND_REGLIST_OLD, 0x1104);
    /* LUT_ACCESS_CFG with its write bit (17) and table address 0x36: the
     * byte fuzz_rknn_init changed (relocation took the convolution for a
     * LUT load and pointed its unused DPU_RDMA_SRC_BASE_ADDR at the stream) */
    static const uint8_t lut_write[4] = {0, 0, 0x36, 0};
    size_t lut_cfg = v4_entry(data, v, RKNN_MODEL_KIND_REGLIST_OLD, 0x4100);

    CHECK(amount && num && lut_cfg, "v2: DCOMP_AMOUNT15, DCOMP_REGNUM, LUT_ACCESS_CFG entries");
    if (!amount || !num || !lut_cfg)
        return;
    v4_refused(data, size, lut_cfg + 4, lut_write, 4, "which only the loads of a LUT tensor may");
    v4_refused(data, size, amount + 4, big, 4, "compressed weight streams (CNA_DCOMP_AMOUNTn)");
    v4_refused(data, size, num + 4, regnum, 4, "not the one layout known");
}

/* ---- crafted copies of the samples ------------------------------------------ */

static void put32(uint8_t *b, size_t off, uint32_t v)
{
    for (unsigned i = 0; i < 4; i++)
        b[off + i] = (uint8_t)(v >> (8 * i));
}

/* A copy of the file with `extra` zero bytes (after up to 3 of alignment)
 * at the end of its FlatBuffer payload: the header's payload size grows and
 * the JSON trailer moves along (format.md §2), every offset inside the
 * payload still holds. *at: the payload offset of the new bytes. */
static uint8_t *grown(const uint8_t *data, size_t size, const rknn_model_view *v, uint32_t extra,
                      size_t *new_size, uint32_t *at)
{
    uint32_t p = (uint32_t)v->payload_size, start = (p + 3u) & ~3u;
    size_t end = v->payload_offset + p, grow = start - p + (size_t)extra;
    uint8_t *c = calloc(size + grow, 1);

    if (!c) {
        printf("out of host memory\n");
        exit(1);
    }
    memcpy(c, data, end);
    memcpy(c + end + grow, data + end, size - end);
    put32(c, 16, (uint32_t)(p + grow)); /* u64 payload size, below 4 GiB */
    *new_size = size + grow;
    *at = start;
    return c;
}

/* Points the offset field `slot` of table t (a table of v's file) at payload
 * offset `to`, which must lie after it (FlatBuffer offsets run forward). */
static void point_field(uint8_t *c, const rknn_model_view *v, const rknn_fbs_table *t,
                        uint32_t slot, uint32_t to)
{
    uint32_t pos = 0;

    CHECK(rknn_fbs_field_pos(t, slot, 4, &pos) == RKNN_FBS_OK && to > pos,
          "slot %lu of the table at %lu is stored", (unsigned long)slot, (unsigned long)t->pos);
    put32(c, v->payload_offset + pos, to - pos);
}

/* Parses a crafted copy; the log lines it wrote land in unsupported_logged. */
static int parse_crafted(const uint8_t *c, size_t n, rknn_model_view *out)
{
    unsupported_log_clear();
    return rknn_model_parse(c, n, out);
}

/* A BSON document built element by element (format.md §3.3, slot 9). */
typedef struct {
    uint8_t b[1024];
    uint32_t n;
} bson_doc;

static void doc_begin(bson_doc *d)
{
    d->n = 4;
}

static void doc_elem(bson_doc *d, uint8_t type, const char *key, const void *value, uint32_t size)
{
    d->b[d->n++] = type;
    memcpy(d->b + d->n, key, strlen(key) + 1);
    d->n += (uint32_t)strlen(key) + 1;
    if (size) /* a value of no bytes may be NULL */
        memcpy(d->b + d->n, value, size);
    d->n += size;
}

static void doc_end(bson_doc *d)
{
    d->b[d->n++] = 0;
    put32(d->b, 0, d->n);
}

/* `levels` documents nested in one another: {"d": {"d": ... {}}}. */
static void doc_nested(bson_doc *d, uint32_t levels)
{
    bson_doc inner;

    doc_begin(d);
    if (levels) {
        doc_nested(&inner, levels - 1);
        doc_elem(d, RKNN_MODEL_ATTR_DOCUMENT, "d", inner.b, inner.n);
    }
    doc_end(d);
}

/* rk3588_dual_residual_custom with node k's attributes (slot 9) replaced by
 * `doc`; the parse's return code, *out and *node (node k) when it succeeds. */
static int parse_with_attrs(const uint8_t *data, size_t size, const rknn_model_view *v, uint32_t k,
                            const bson_doc *doc, rknn_model_view *out, rknn_model_node_info *node,
                            uint8_t **copy)
{
    rknn_fbs_table t;
    size_t n;
    uint32_t at;
    int ret;

    *copy = grown(data, size, v, 4 + doc->n, &n, &at);
    put32(*copy, v->payload_offset + at, doc->n);
    memcpy(*copy + v->payload_offset + at + 4, doc->b, doc->n);
    CHECK(rknn_fbs_vec_table(&v->fbs.nodes, k, &t) == RKNN_FBS_OK, "node %lu", (unsigned long)k);
    point_field(*copy, v, &t, 9, at);
    ret = parse_crafted(*copy, n, out);
    if (ret == RKNN_SUCC)
        ret = rknn_model_node(out, k, node);
    return ret;
}

/* Operator attributes (format.md §3.3): a binary value (its bytes, the
 * subtype skipped), an attribute not in the {dtype, value} form (the
 * element itself), and the limits: nesting 4 deep, 256 attributes. */
static void check_crafted_attrs(const uint8_t *data, size_t size, const rknn_model_view *v)
{
    static const uint8_t dtype[6] = {2, 0, 0, 0, 's', 0}, seven[4] = {7, 0, 0, 0};
    static const uint8_t bin[8] = {3, 0, 0, 0, 0x80, 'x', 'y', 'z'};
    static const uint8_t bin_long[8] = {4, 0, 0, 0, 0x80, 'x', 'y', 'z'};
    rknn_model_view m;
    rknn_model_node_info n;
    rknn_model_attr a;
    rknn_model_attr_value e;
    bson_doc inner, doc;
    uint8_t *copy;
    uint32_t k = 4; /* cstDualResidual, the node with attributes */
    int ret;

    CHECK(rknn_model_node(v, k, &n) == RKNN_SUCC && n.n_attrs == 1, "node 4 has attributes");
    /* {"blob": {"dtype": "s", "value": binary "xyz"}} */
    doc_begin(&inner);
    doc_elem(&inner, RKNN_MODEL_ATTR_STRING, "dtype", dtype, sizeof dtype);
    doc_elem(&inner, RKNN_MODEL_ATTR_BINARY, "value", bin, sizeof bin);
    doc_end(&inner);
    doc_begin(&doc);
    doc_elem(&doc, RKNN_MODEL_ATTR_DOCUMENT, "blob", inner.b, inner.n);
    doc_end(&doc);
    ret = parse_with_attrs(data, size, v, k, &doc, &m, &n, &copy);
    CHECK(ret == RKNN_SUCC && n.n_attrs == 1 && rknn_model_node_attr(&n, 0, &a) == RKNN_SUCC &&
              a.value_type == RKNN_MODEL_ATTR_BINARY && a.value_size == 3 &&
              memcmp(a.value, "xyz", 3) == 0 && a.dtype.len == 1 && a.n_elems == 1 &&
              rknn_model_attr_elem(&a, 0, &e) == RKNN_SUCC && e.size == 3 &&
              memcmp(e.data, "xyz", 3) == 0,
          "a binary attribute value: parse %d", ret);
    free(copy);
    /* its length one byte past the document's end */
    doc_begin(&inner);
    doc_elem(&inner, RKNN_MODEL_ATTR_BINARY, "value", bin_long, sizeof bin_long);
    doc_end(&inner);
    doc_begin(&doc);
    doc_elem(&doc, RKNN_MODEL_ATTR_DOCUMENT, "blob", inner.b, inner.n);
    doc_end(&doc);
    ret = parse_with_attrs(data, size, v, k, &doc, &m, &n, &copy);
    CHECK(ret == RKNN_ERR_MODEL_INVALID && strstr(unsupported_logged, "not a well-formed BSON"),
          "a binary value past its document: parse %d, logged '%s'", ret, unsupported_logged);
    free(copy);
    /* {"axis": int32 7}: no {dtype, value} document */
    doc_begin(&doc);
    doc_elem(&doc, RKNN_MODEL_ATTR_INT32, "axis", seven, sizeof seven);
    doc_end(&doc);
    ret = parse_with_attrs(data, size, v, k, &doc, &m, &n, &copy);
    CHECK(ret == RKNN_SUCC && rknn_model_node_attr(&n, 0, &a) == RKNN_SUCC && a.name.len == 4 &&
              memcmp(a.name.ptr, "axis", 4) == 0 && a.dtype.len == 0 &&
              a.value_type == RKNN_MODEL_ATTR_INT32 && a.value_size == 4 &&
              rknn_fbs_le32(a.value) == 7 && a.n_elems == 1,
          "a plain int32 attribute: parse %d", ret);
    free(copy);
    /* documents nested 4 deep are read, 5 deep refused */
    for (uint32_t levels = 4; levels <= 5; levels++) {
        doc_nested(&doc, levels);
        ret = parse_with_attrs(data, size, v, k, &doc, &m, &n, &copy);
        if (levels == 4)
            CHECK(ret == RKNN_SUCC && n.n_attrs == 1, "attributes nested 4 deep: parse %d", ret);
        else
            CHECK(ret == RKNN_ERR_MODEL_INVALID &&
                      strstr(unsupported_logged, "not a well-formed BSON"),
                  "attributes nested 5 deep: parse %d, logged '%s'", ret, unsupported_logged);
        free(copy);
    }
    /* 256 null attributes are read, 257 refused */
    for (uint32_t count = 256; count <= 257; count++) {
        doc_begin(&doc);
        for (uint32_t i = 0; i < count; i++)
            doc_elem(&doc, RKNN_MODEL_ATTR_NULL, "", NULL, 0);
        doc_end(&doc);
        ret = parse_with_attrs(data, size, v, k, &doc, &m, &n, &copy);
        if (count == 256)
            CHECK(ret == RKNN_SUCC && n.n_attrs == 256, "256 attributes: parse %d", ret);
        else
            CHECK(ret == RKNN_ERR_MODEL_INVALID &&
                      strstr(unsupported_logged, "attributes of one node"),
                  "257 attributes: parse %d, logged '%s'", ret, unsupported_logged);
        free(copy);
    }
}

/* Relocation entries in total (format.md §4.3: at most
 * RKNN_MODEL_MAX_RELOC_ENTRIES per table and in all): every table of
 * rk3588_multiple_input_demo pointed at one appended vector of entries
 * (addend 0, word 0), as many as the limit allows in all, then one more
 * each. And a task blob of more than RKNN_MODEL_MAX_TASKS records (format.md §4.2). */
static void check_crafted_counts(const uint8_t *data, size_t size, const rknn_model_view *v)
{
    rknn_model_view m;
    uint8_t *copy;
    size_t n;
    uint32_t at;
    int ret;

    for (uint32_t over = 0; over <= 1 && v->n_relocs > 1; over++) {
        uint32_t per = RKNN_MODEL_MAX_RELOC_ENTRIES / v->n_relocs + over;
        copy = grown(data, size, v, 4 + per * 8u, &n, &at);
        put32(copy, v->payload_offset + at, per);
        for (uint32_t r = 0; r < v->n_relocs; r++) {
            rknn_fbs_table t;
            CHECK(rknn_fbs_vec_table(&v->fbs.relocs, r, &t) == RKNN_FBS_OK, "reloc %lu",
                  (unsigned long)r);
            point_field(copy, v, &t, 1, at);
        }
        ret = parse_crafted(copy, n, &m);
        if (!over)
            CHECK(ret == RKNN_SUCC && m.n_reloc_entries == per * v->n_relocs,
                  "%lu relocation entries in all: parse %d", (unsigned long)(per * v->n_relocs),
                  ret);
        else
            CHECK(ret == RKNN_ERR_MODEL_INVALID && strstr(unsupported_logged, "relocation entries"),
                  "%lu relocation entries in all: parse %d, logged '%s'",
                  (unsigned long)(per * v->n_relocs), ret, unsupported_logged);
        free(copy);
    }
    copy = grown(data, size, v, (RKNN_MODEL_MAX_TASKS + 1u) * RKNN_MODEL_TASK_RECORD_SIZE, &n, &at);
    put32(copy, (size_t)(v->task_data - data) - 4,
          (RKNN_MODEL_MAX_TASKS + 1u) * RKNN_MODEL_TASK_RECORD_SIZE);
    ret = parse_crafted(copy, n, &m);
    CHECK(ret == RKNN_ERR_MODEL_INVALID && strstr(unsupported_logged, "task count"),
          "a task blob of 65537 records: parse %d, logged '%s'", ret, unsupported_logged);
    free(copy);
}

/* Packed constants of 4 GiB are refused (format.md §4.4): every weight blob
 * of PP-OCRv4 det (each blob one of the Model's, format.md §3.1) made to
 * run to the end of a payload grown by 4 GiB / their count. */
static void check_crafted_weights(const uint8_t *data, size_t size, const rknn_model_view *v)
{
    uint8_t *not_weight = calloc(v->n_blobs, 1), *copy;
    rknn_model_view m;
    rknpu_model_mem need;
    uint32_t n_weights = 0, at;
    size_t n;
    int ret;

    if (!not_weight)
        exit(1);
    for (uint32_t i = 0; i < v->n_tensors; i++) {
        rknn_model_tensor_info t;
        if (rknn_model_tensor(v, i, &t) == RKNN_SUCC &&
            (t.kind == RKNN_MODEL_KIND_LUT || t.kind == RKNN_MODEL_KIND_REGCMD ||
             t.kind == RKNN_MODEL_KIND_TASKS))
            not_weight[t.blob_index] = 1;
    }
    for (uint32_t b = 0; b < v->n_blobs; b++) {
        const uint8_t *d;
        uint32_t s;
        n_weights += !not_weight[b] && rknn_model_blob(v, b, &d, &s) == RKNN_SUCC && s;
    }
    CHECK(n_weights > 100, "PP-OCRv4 det: %lu weight blobs", (unsigned long)n_weights);
    if (n_weights <= 100) {
        free(not_weight);
        return;
    }
    copy = grown(data, size, v, (uint32_t)((1ull << 32) / n_weights) + 4096u, &n, &at);
    for (uint32_t b = 0; b < v->n_blobs; b++) {
        const uint8_t *d;
        uint32_t s;
        if (!not_weight[b] && rknn_model_blob(v, b, &d, &s) == RKNN_SUCC && s) {
            size_t count_at = (size_t)(d - data) - 4;
            put32(copy, count_at, (uint32_t)(n - 8 - v->json_size - count_at - 4));
        }
    }
    ret = parse_crafted(copy, n, &m);
    CHECK(ret == RKNN_SUCC, "weight blobs to the payload's end: parse %d", ret);
    unsupported_log_clear();
    ret = rknpu_model_mem_requirements(copy, n, &need);
    CHECK(ret == RKNN_ERR_MODEL_INVALID && strstr(unsupported_logged, "exceed 4 GiB"),
          "4 GiB of constants: rknpu_model_mem_requirements %d, logged '%s'", ret,
          unsupported_logged);
    free(copy);
    free(not_weight);
}

/* Container 2 (format.md §5.1, §5.2): a regcmd tensor in the file; a node
 * whose tasks skip a core configuration below its largest; lowering into
 * too small or misaligned a buffer, or after the file's register lists
 * changed; a step that stops where a chain link is missing. */
/* A graph output that is not an activation has no bytes in the arena the
 * plan counts: the plan refuses it (fuzz_rknn_init found a v2 file whose
 * last two nodes were gone and whose output tensor had another kind; the
 * arena a context kept for itself then ended before the convolution's
 * output, and the NPU wrote past it). */
static void check_v2_output_kind(const uint8_t *data, size_t size, const rknn_model_view *v)
{
    const npu_soc_profile *soc = npu_soc_find_platform("rk3588");
    uint8_t *copy = malloc(size);
    uint32_t out = 0, kind_pos = 0;
    rknn_fbs_table t;
    rknn_model_view m;
    rknn_mem_plan plan;

    int found = copy && soc && rknn_model_io(v, 0, 0, &out) == RKNN_SUCC && v->n_nodes == 5 &&
                rknn_fbs_vec_table(&v->fbs.tensors, out, &t) == RKNN_FBS_OK &&
                rknn_fbs_field_pos(&t, 2, 1, &kind_pos) == RKNN_FBS_OK;

    CHECK(found, "v2: the output tensor's kind field (Tensor slot 2)");
    if (!found) {
        free(copy);
        return;
    }
    memcpy(copy, data, size);
    put32(copy, v->payload_offset + v->fbs.nodes.pos - 4, 3); /* Conv's nodes only */
    copy[v->payload_offset + kind_pos] = RKNN_MODEL_KIND_NULL;
    unsupported_log_clear();
    CHECK(rknn_model_parse(copy, size, &m) == RKNN_SUCC && m.n_nodes == 3,
          "v2 without its last two nodes parses");
    CHECK(rknn_model_plan(&m, soc, &plan) == RKNN_ERR_MODEL_INVALID &&
              strstr(unsupported_logged, "not an activation"),
          "v2 output of kind 0: plan refused, logged '%s'", unsupported_logged);
    free(copy);
}

static void check_v2_crafted(const uint8_t *data, size_t size, const rknn_model_view *v)
{
    static const uint8_t regcmd_kind[1] = {RKNN_MODEL_KIND_REGCMD}, two_cores[4] = {2, 0, 0, 0};
    const npu_soc_profile *soc = npu_soc_find_platform("rk3588");
    size_t kind_at = 0, cores_at = 0;
    rknn_model_view m;
    rknn_model_step s;
    uint8_t *copy, *buf;
    uint32_t node = 0;
    int ret;

    for (uint32_t i = 0; i < v->n_tensors && !kind_at; i++) {
        rknn_model_tensor_info ti;
        rknn_fbs_table t;
        uint32_t pos;
        if (rknn_model_tensor(v, i, &ti) == RKNN_SUCC && ti.kind == RKNN_MODEL_KIND_CONST &&
            rknn_fbs_vec_table(&v->fbs.tensors, i, &t) == RKNN_FBS_OK &&
            rknn_fbs_field_pos(&t, 2, 1, &pos) == RKNN_FBS_OK) /* Tensor slot 2, kind */
            kind_at = v->payload_offset + pos;
    }
    /* the first task table stored as a 1-core configuration (task slot 8):
     * made core 0 of 2, its node has none for 1 core */
    for (uint32_t k = 0; k < v->n_nodes && !cores_at; k++) {
        rknn_fbs_table t, task;
        rknn_fbs_vector tasks;
        uint32_t pos, cores = 0;
        if (rknn_fbs_vec_table(&v->fbs.nodes, k, &t) != RKNN_FBS_OK ||
            rknn_fbs_get_vector(&t, 6, 4, &tasks) != RKNN_FBS_OK) /* Node slot 6 */
            continue;
        for (uint32_t i = 0; i < tasks.count && !cores_at; i++)
            if (rknn_fbs_vec_table(&tasks, i, &task) == RKNN_FBS_OK &&
                rknn_fbs_get_u32(&task, 8, 0, &cores) == RKNN_FBS_OK && cores == 1 &&
                rknn_fbs_field_pos(&task, 8, 4, &pos) == RKNN_FBS_OK)
                cores_at = v->payload_offset + pos;
    }
    CHECK(kind_at && cores_at && soc, "v2: a constant's kind and a 1-core task's core count");
    if (!kind_at || !cores_at || !soc)
        return;
    v4_refused(data, size, kind_at, regcmd_kind, 1, "container 2 with a regcmd or task tensor");
    v4_refused(data, size, cores_at, two_cores, 4, "but none for 1");

    copy = malloc(size);
    buf = malloc(v->lowered_size + 8u);
    if (!copy || !buf)
        exit(1);
    memcpy(copy, data, size);
    ret = parse_crafted(copy, size, &m);
    CHECK(ret == RKNN_SUCC &&
              rknn_model_lower(&m, soc, buf, m.lowered_size - 1) == RKNN_ERR_PARAM_INVALID &&
              rknn_model_lower(&m, soc, buf + 4, m.lowered_size) == RKNN_ERR_PARAM_INVALID &&
              rknn_model_lower(&m, soc, NULL, m.lowered_size) == RKNN_ERR_PARAM_INVALID &&
              !m.lowered,
          "lowering into a short, misaligned or no buffer");
    /* two entries fewer in the first register list since the parse (one
     * could leave the stream its length: tasks start 16-byte aligned) */
    {
        rknn_model_tensor_info ti;
        size_t count_at = 0;
        for (uint32_t i = 0; i < m.n_tensors && !count_at; i++)
            if (rknn_model_tensor(&m, i, &ti) == RKNN_SUCC &&
                ti.kind == RKNN_MODEL_KIND_REGLIST_OLD && ti.data_size > 16)
                count_at = (size_t)(ti.data - copy) - 4;
        CHECK(count_at, "v2: a register list");
        if (count_at) {
            put32(copy, count_at, rknn_fbs_le32(copy + count_at) - 16);
            unsupported_log_clear();
            ret = rknn_model_lower(&m, soc, buf, m.lowered_size);
            CHECK(ret == RKNN_ERR_MODEL_INVALID &&
                      strstr(unsupported_logged, "changed since the parse") && !m.lowered &&
                      !m.regcmd && !m.task_data && m.n_relocs == 0,
                  "a register list shorter than at the parse: lowering %d, logged '%s'", ret,
                  unsupported_logged);
        }
    }
    /* a task of a 2-core configuration moved from core 1 to core 0 since the
     * parse: as many records, but not in the groups the parse laid out */
    memcpy(copy, data, size);
    if (parse_crafted(copy, size, &m) == RKNN_SUCC) {
        size_t core_at = 0;
        for (uint32_t k = 0; k < m.n_nodes && !core_at; k++) {
            rknn_fbs_table t, task;
            rknn_fbs_vector tasks;
            uint32_t pos, cores = 0, core = 0;
            if (rknn_fbs_vec_table(&m.fbs.nodes, k, &t) != RKNN_FBS_OK ||
                rknn_fbs_get_vector(&t, 6, 4, &tasks) != RKNN_FBS_OK)
                continue;
            for (uint32_t i = 0; i < tasks.count && !core_at; i++)
                if (rknn_fbs_vec_table(&tasks, i, &task) == RKNN_FBS_OK &&
                    rknn_fbs_get_u32(&task, 8, 0, &cores) == RKNN_FBS_OK && cores == 2 &&
                    rknn_fbs_get_u32(&task, 6, 0, &core) == RKNN_FBS_OK && core == 1 &&
                    rknn_fbs_field_pos(&task, 6, 4, &pos) == RKNN_FBS_OK) /* task slot 6 */
                    core_at = m.payload_offset + pos;
        }
        CHECK(core_at, "v2: a task on core 1 of 2");
        if (core_at) {
            put32(copy, core_at, 0);
            unsupported_log_clear();
            ret = rknn_model_lower(&m, soc, buf, m.lowered_size);
            CHECK(ret == RKNN_ERR_MODEL_INVALID && strstr(unsupported_logged, "core group") &&
                      !m.lowered && !m.regcmd && !m.task_data && m.n_relocs == 0,
                  "a task moved to another core since the parse: lowering %d, logged '%s'", ret,
                  unsupported_logged);
        }
    }
    /* the 2-core step of the first node with records on both cores runs on
     * into the next node only while each core's chain links into it */
    memcpy(copy, data, size);
    if (parse_crafted(copy, size, &m) == RKNN_SUCC &&
        rknn_model_lower(&m, soc, buf, m.lowered_size) == RKNN_SUCC &&
        rknn_model_next_step(&m, 2, &node, m.n_nodes, &s) == RKNN_SUCC) {
        uint32_t first = s.core[0].first, n_first = 0, whole = s.core[0].count, next = node;
        rknn_model_task_info a, ti;
        /* the step's first node's records on core 0 */
        CHECK(rknn_model_task(&m, first, &a) == RKNN_SUCC, "v2: record %lu", (unsigned long)first);
        while (n_first < whole && rknn_model_task(&m, first + n_first, &ti) == RKNN_SUCC &&
               ti.op_idx == a.op_idx)
            n_first++;
        CHECK(n_first < whole, "v2 on 2 cores: a step of two nodes (%lu records on core 0)",
              (unsigned long)whole);
        if (n_first < whole && rknn_model_task(&m, first + n_first - 1, &ti) == RKNN_SUCC) {
            uint32_t link = (uint32_t)(ti.regcmd_addr / 8) + ti.regcfg_amount;
            memset(buf + (size_t)link * 8, 0, 8); /* core 0's chain ends there */
            node = 0;
            CHECK(rknn_model_next_step(&m, 2, &node, m.n_nodes, &s) == RKNN_SUCC && node < next &&
                      s.core[0].first == first && s.core[0].count == n_first,
                  "v2 on 2 cores, one link cut: the step ends at node %lu (%lu records), not "
                  "%lu",
                  (unsigned long)node, (unsigned long)s.core[0].count, (unsigned long)next);
        }
    } else {
        CHECK(0, "v2: lowering a copy and its first 2-core step");
    }
    free(buf);
    free(copy);
}

/* Accessors on indices past the view's tables, and weight blobs compared
 * across files (format.md §4.4: SHARE_WEIGHT_MEM needs the same blob sizes). */
static void check_api_refusals(const uint8_t *data, size_t size, const rknn_model_view *v)
{
    rknn_model_reloc_info r;
    rknn_model_view m;
    uint32_t addend, word, home;
    const uint8_t *blob = NULL;
    uint8_t *copy = malloc(size);

    CHECK(rknn_model_reloc(v, 0, &r) == RKNN_SUCC &&
              rknn_model_reloc_entry(&r, r.n_entries, &addend, &word) == RKNN_ERR_PARAM_INVALID &&
              rknn_model_reloc_entry(&r, 0, NULL, &word) == RKNN_ERR_PARAM_INVALID &&
              rknn_model_reloc_entry(NULL, 0, &addend, &word) == RKNN_ERR_PARAM_INVALID,
          "relocation entry past the table or without an output");
    CHECK(rknn_model_task_links_to(v, 0, v->n_tasks) == 0 &&
              rknn_model_task_links_to(v, v->n_tasks, 0) == 0,
          "links from or to a record past the table");
    CHECK(rknn_model_home_size(v, 1, v->n_inputs, &home) == RKNN_ERR_PARAM_INVALID &&
              rknn_model_home_size(v, 0, v->n_outputs, &home) == RKNN_ERR_PARAM_INVALID,
          "home size of an input or output past the graph's");
    if (!copy)
        exit(1);
    memcpy(copy, data, size);
    for (uint32_t b = 1; b < v->n_blobs && !blob; b++) {
        uint32_t s;
        if (rknn_model_blob(v, b, &blob, &s) != RKNN_SUCC || s < 64)
            blob = NULL;
    }
    if (blob) /* one blob 64 bytes shorter */
        put32(copy, (size_t)(blob - data) - 4, rknn_fbs_le32(blob - 4) - 64);
    CHECK(blob && parse_crafted(copy, size, &m) == RKNN_SUCC &&
              rknn_model_same_weight_blobs(v, &m) == RKNN_ERR_PARAM_INVALID &&
              rknn_model_same_weight_blobs(v, v) == RKNN_SUCC,
          "a file with one blob shorter has other weight blobs");
    free(copy);
}

static unsupported_list unsupported;

/* The v2 build of the toy model against its v6 build, read from `dir`. */
static void check_v2_against_v6(const char *dir, const rknn_model_view *v)
{
    char path[4096];
    size_t size = 0;
    uint8_t *data;
    rknn_model_view v6;

    snprintf(path, sizeof path, "%s/rk3588_multiple_input_demo.v6.rknn", dir);
    data = tool_read_file(path, SIZE_MAX, &size);
    CHECK(data && rknn_model_parse(data, size, &v6) == RKNN_SUCC, "the v6 build %s", path);
    if (data && v6.n_relocs)
        check_multiple_input_v2(v, &v6);
    free(data);
}

/* Container 4: build the stream, records and relocations for the SoC the
 * model names (rknn_model_lower), as rknn_init does. */
static void *lower(rknn_model_view *v)
{
    char platform[32];
    void *buf;

    if (v->lowered_size == 0)
        return NULL;
    rknn_model_string_copy(v->target_platform, platform, sizeof platform);
    buf = malloc(v->lowered_size);
    CHECK(buf && rknn_model_lower(v, npu_soc_find_platform(platform), buf, v->lowered_size) ==
                     RKNN_SUCC,
          "lowering the register lists");
    return buf;
}

static void check_model(const char *dir, const char *name, line_list *out)
{
    unsupported_model *u = unsupported_find(&unsupported, name);
    char path[4096];
    size_t size = 0;
    uint8_t *data;
    void *lowered;
    rknn_model_view v;
    int ret, before = log_lines;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    data = tool_read_file(path, SIZE_MAX, &size);
    if (!data) {
        CHECK(0, "cannot read %s", path);
        return;
    }
    unsupported_log_clear();
    ret = rknn_model_parse(data, size, &v);
    if (u) {
        u->seen = 1;
        if (unsupported_verdict(u, ret) == 0) {
            char line[300];
            snprintf(line, sizeof line, "%s unsupported", name);
            list_add(out, line);
            free(data);
            return;
        }
        failures++;
    } else {
        CHECK(ret == RKNN_SUCC, "%s: parse returned %d (and it is not in %s)", name, ret,
              TEST_UNSUPPORTED_LIST);
        CHECK(ret != RKNN_SUCC || log_lines == before, "%s: parse logged although it succeeded",
              name);
    }
    lowered = ret == RKNN_SUCC ? lower(&v) : NULL;
    emit_model(name, &v, ret, out);
    if (ret == RKNN_SUCC) {
        emit_weights(&v, data, size);
        check_reloc_addends(name, &v);
        if (strcmp(name, "rk3588_multiple_input_demo.v6.rknn") == 0) {
            check_rk3588_multiple_input(&v);
            check_api_refusals(data, size, &v);
            check_crafted_counts(data, size, &v);
        } else if (strcmp(name, "rk3566_multiple_input_demo.v6.rknn") == 0)
            check_rk3566_multiple_input(&v);
        else if (strcmp(name, "rk3588_dual_residual_custom.v6.rknn") == 0) {
            check_dual_residual(&v, 1);
            check_crafted_attrs(data, size, &v);
        } else if (strcmp(name, "rk3566_dual_residual_custom.v6.rknn") == 0)
            check_dual_residual(&v, 0);
        else if (strcmp(name, "rk3588_ppocrv4_det.v6.rknn") == 0) {
            check_ppocrv4_det(&v);
            check_crafted_weights(data, size, &v);
        } else if (strcmp(name, "rk3566_yolov8n.v4.rknn") == 0) {
            check_yolov8n_v4(&v);
            check_v4_refusals(data, size, &v);
        } else if (strcmp(name, "rk3588_multiple_input_demo.v2.rknn") == 0) {
            check_v2_against_v6(dir, &v);
            check_v2_refusals(data, size, &v);
            check_v2_crafted(data, size, &v);
            check_v2_output_kind(data, size, &v);
        } else
            CHECK(0, "%s: a new model: add its hand-typed checks to check_model()", name);
    }
    free(lowered);
    free(data);
}

static void read_lines(const char *path, line_list *out)
{
    static char line[1 << 17];
    FILE *f = fopen(path, "r");

    if (!f) {
        CHECK(0, "cannot read expected file %s", path);
        return;
    }
    while (fgets(line, sizeof(line), f)) {
        size_t n = strlen(line);
        while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
            line[--n] = 0;
        if (n)
            list_add(out, line);
    }
    fclose(f);
}

/* Both lists sorted; prints up to 20 lines only in one of them. */
static void compare_lines(line_list *got, line_list *want)
{
    size_t i = 0, j = 0, shown = 0;

    qsort(got->items, got->count, sizeof(char *), cmp_str);
    qsort(want->items, want->count, sizeof(char *), cmp_str);
    while (i < got->count || j < want->count) {
        int c = i == got->count ? 1 : j == want->count ? -1 : strcmp(got->items[i], want->items[j]);
        if (c == 0) {
            i++, j++;
            continue;
        }
        failures++;
        if (shown++ < 20)
            printf("FAIL %s line: %s\n", c < 0 ? "unexpected" : "missing",
                   c < 0 ? got->items[i] : want->items[j]);
        if (c < 0)
            i++;
        else
            j++;
    }
    printf("compared %lu C-parser lines with %lu reference lines\n", (unsigned long)got->count,
           (unsigned long)want->count);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : "../shared/models";
    line_list names = {0}, got = {0}, want = {0};
    struct dirent *de;
    DIR *d;

    check_headers();
    if (unsupported_load(&unsupported) != 0)
        return 1;
    d = opendir(dir);
    if (!d) {
        printf("FAIL: missing sample-model directory %s (../shared/models)\n", dir);
        return 1;
    }
    while ((de = readdir(d)) != NULL) {
        size_t n = strlen(de->d_name);
        if (n > 5 && strcmp(de->d_name + n - 5, ".rknn") == 0)
            list_add(&names, de->d_name);
    }
    closedir(d);
    qsort(names.items, names.count, sizeof(char *), by_name);
    CHECK(names.count >= 5, "only %lu models in %s", (unsigned long)names.count, dir);
    for (size_t i = 0; i < names.count; i++)
        check_model(dir, names.items[i], &got);
    failures += unsupported_check_seen(&unsupported, dir);
    if (argc > 2) {
        read_lines(argv[2], &want);
        compare_lines(&got, &want);
    } else {
        printf("FAIL: no expected file (tests/tools/rknn_expect.py output from "
               "../shared/tools/rknn_inspect.py): the reference comparison cannot run\n");
        failures++;
    }
    list_free(&names);
    list_free(&got);
    list_free(&want);
    if (failures) {
        printf("test_rknn_model: %d failure(s)\n", failures);
        return 1;
    }
    printf("test_rknn_model: OK\n");
    return 0;
}
