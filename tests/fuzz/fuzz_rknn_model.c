/*
 * fuzz_rknn_model.c - libFuzzer target for the .rknn parser and its accessors.
 *
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -Irknn/include -Ihal/include -Irknn -Irknn/format \
 *         tests/fuzz/fuzz_rknn_model.c rknn/format/rknn_fbs.c rknn/format/rknn_format.c <hal logging> \
 *         -o fuzz_rknn_model
 *   ./fuzz_rknn_model CORPUS_DIR ../shared/models
 *
 * The input is copied into a buffer of exactly its size (libFuzzer already
 * does that; the copy keeps the contract explicit), parsed, a container-4
 * view lowered (rknn_model_lower, as rknn_init does), and on success every
 * accessor is called for every index the view reports. Contract violations
 * abort (so libFuzzer records them as crashes):
 *   - parse returns something other than RKNN_SUCC / RKNN_ERR_MODEL_INVALID;
 *   - a container-4 model parses but does not lower;
 *   - an accessor fails for an index inside a successfully parsed view;
 *   - a pointer the view hands out lies outside the input.
 * Sanitizers catch the rest (out-of-bounds reads, overflow, misalignment).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rknn_api.h"
#include "rknn_model.h"
#include "rknpu_bm.h"

/* Silence the parser's log lines (thousands per second while fuzzing). */
void rknpu_hook_log(rknpu_log_level level, const char *msg)
{
    (void)level;
    (void)msg;
}

static void require(int cond)
{
    if (!cond)
        abort();
}

static int inside(const rknn_model_view *v, const uint8_t *p, size_t n)
{
    const uint8_t *lo = v->file, *hi = v->file + v->file_size;

    return p >= lo && p <= hi && n <= (size_t)(hi - p);
}

static void fuzz_tensors(const rknn_model_view *v)
{
    rknn_model_tensor_info t;
    uint32_t idx;
    float f;
    int32_t zp;

    for (uint32_t i = 0; i < v->n_tensors; i++) {
        require(rknn_model_tensor(v, i, &t) == RKNN_SUCC);
        require(t.n_dims <= RKNN_MODEL_MAX_DIMS && t.n_native_dims <= RKNN_MODEL_MAX_DIMS);
        require(inside(v, (const uint8_t *)t.name.ptr, t.name.len) || t.name.len == 0);
        require(!t.data || inside(v, t.data, t.data_size));
        for (uint32_t k = 0; k < t.n_scales; k++)
            require(rknn_model_tensor_scale(&t, k, &f) == RKNN_SUCC);
        for (uint32_t k = 0; k < t.n_zero_points; k++)
            require(rknn_model_tensor_zero_point(&t, k, &zp) == RKNN_SUCC);
        require(rknn_model_find_tensor(v, t.name.ptr, t.name.len, &idx) == RKNN_SUCC && idx <= i);
    }
    require(rknn_model_tensor(v, v->n_tensors, &t) == RKNN_ERR_PARAM_INVALID);
}

static void fuzz_attrs(const rknn_model_node_info *n)
{
    rknn_model_attr a, b;
    rknn_model_attr_value e;
    char name[64];

    for (uint32_t k = 0; k < n->n_attrs; k++) {
        require(rknn_model_node_attr(n, k, &a) == RKNN_SUCC);
        for (uint32_t j = 0; j < a.n_elems; j++)
            require(rknn_model_attr_elem(&a, j, &e) == RKNN_SUCC && (e.size == 0 || e.data));
        /* Lookup by name finds an attribute with that name (the first one). */
        if (a.name.len < sizeof(name) && !memchr(a.name.ptr, 0, a.name.len)) {
            memcpy(name, a.name.ptr, a.name.len);
            name[a.name.len] = 0;
            require(rknn_model_node_attr_find(n, name, &b) == RKNN_SUCC &&
                    b.name.len == a.name.len);
        }
    }
}

static void fuzz_nodes(const rknn_model_view *v)
{
    rknn_model_node_info n;
    uint32_t idx;

    for (uint32_t i = 0; i < v->n_nodes; i++) {
        require(rknn_model_node(v, i, &n) == RKNN_SUCC);
        for (uint32_t k = 0; k < n.n_inputs; k++)
            require(rknn_model_node_input(&n, k, &idx) == RKNN_SUCC && idx < v->n_tensors);
        for (uint32_t k = 0; k < n.n_outputs; k++)
            require(rknn_model_node_output(&n, k, &idx) == RKNN_SUCC && idx < v->n_tensors);
        require(n.n_core_slots <= RKNN_MODEL_MAX_CORE_SLOTS);
        fuzz_attrs(&n);
    }
}

static void fuzz_rest(const rknn_model_view *v)
{
    rknn_model_reloc_info r;
    rknn_model_norm_info nm;
    rknn_model_task_info task;
    rknn_model_task_range g;
    const uint8_t *data;
    uint32_t size, idx, addend, word;
    float f;

    for (uint32_t i = 0; i < v->n_inputs; i++)
        require(rknn_model_io(v, 1, i, &idx) == RKNN_SUCC && idx < v->n_tensors);
    for (uint32_t i = 0; i < v->n_outputs; i++)
        require(rknn_model_io(v, 0, i, &idx) == RKNN_SUCC && idx < v->n_tensors);
    for (uint32_t i = 0; i < v->n_norms; i++) {
        require(rknn_model_norm(v, i, &nm) == RKNN_SUCC);
        for (uint32_t c = 0; c < nm.n_channels; c++)
            require(rknn_model_norm_mean(&nm, c, &f) == RKNN_SUCC &&
                    rknn_model_norm_std(&nm, c, &f) == RKNN_SUCC);
    }
    for (uint32_t i = 0; i < v->n_relocs; i++) {
        require(rknn_model_reloc(v, i, &r) == RKNN_SUCC && r.tensor_index < v->n_tensors);
        for (uint32_t k = 0; k < r.n_entries; k++)
            require(rknn_model_reloc_entry(&r, k, &addend, &word) == RKNN_SUCC &&
                    word < v->n_regcmd_words);
    }
    for (uint32_t i = 0; i < v->n_blobs; i++)
        require(rknn_model_blob(v, i, &data, &size) == RKNN_SUCC &&
                (!data || inside(v, data, size)));
    for (uint32_t i = 0; i < v->n_tasks; i++)
        require(rknn_model_task(v, i, &task) == RKNN_SUCC && task.op_idx < v->n_nodes &&
                task.regcmd_addr + (uint64_t)task.regcfg_amount * 8 <= v->regcmd_size);
    for (uint32_t c = 1; c <= v->max_cores; c++)
        for (uint32_t k = 0; k < c; k++)
            require(rknn_model_task_group(v, c, k, &g) == RKNN_SUCC &&
                    (uint64_t)g.first + g.count <= v->n_tasks);
    require(rknn_model_task_group(v, v->max_cores + 1, 0, &g) == RKNN_ERR_PARAM_INVALID);
    if (v->lowered) { /* built by rknn_model_lower, in its own buffer */
        require(v->regcmd == v->lowered && v->task_data == v->lowered + v->regcmd_size);
    } else {
        require(!v->regcmd || inside(v, v->regcmd, v->regcmd_size));
        require(!v->task_data ||
                inside(v, v->task_data, (size_t)v->n_tasks * RKNN_MODEL_TASK_RECORD_SIZE));
    }
    require(inside(v, (const uint8_t *)v->json, v->json_size));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rknn_model_view v;
    uint8_t *copy = malloc(size ? size : 1), *lowered = NULL;
    int ret;

    if (!copy)
        return 0;
    memcpy(copy, data, size);
    ret = rknn_model_parse(copy, size, &v);
    require(ret == RKNN_SUCC || ret == RKNN_ERR_MODEL_INVALID);
    if (ret == RKNN_SUCC && v.lowered_size) {
        char platform[32];
        rknn_model_string_copy(v.target_platform, platform, sizeof platform);
        lowered = malloc(v.lowered_size);
        require(lowered && rknn_model_lower(&v, npu_soc_find_platform(platform), lowered,
                                            v.lowered_size) == RKNN_SUCC);
    }
    if (ret == RKNN_SUCC) {
        fuzz_tensors(&v);
        fuzz_nodes(&v);
        fuzz_rest(&v);
    }
    free(lowered);
    free(copy);
    return 0;
}
