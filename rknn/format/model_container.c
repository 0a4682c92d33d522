/*
 * model_container.c - the .rknn container (header, FlatBuffer payload, JSON
 * trailer), the Model and Graph tables, the whole-model parse that validates
 * every table before any accessor is used, and moving a view onto a copy.
 * Format: docs/format.md (section numbers in the comments).
 */
#include "model_internal.h"

#include <string.h>

#include "hal.h"
#include "rknn_api.h"

/* ---- container (format.md §2) ------------------------------------------------------- */

static void log_unsupported_version(uint64_t version)
{
    if (version >= 1 && version <= 5)
        HAL_LOG_ERR("rknn model: container version %lu is not supported: rknpu-bm reads "
                    "versions 6 (RKNN-Toolkit2 >= 1.6), 4 and 2 (toolkit 1.x); re-export the "
                    "model with a newer toolkit",
                    (unsigned long)version);
    else
        HAL_LOG_ERR("rknn model: unknown container version 0x%08lx%08lx (2, 4 and 6 are "
                    "supported)",
                    (unsigned long)(version >> 32), (unsigned long)(version & 0xffffffffu));
}

static int parse_container(const uint8_t *d, size_t size, rknn_model_view *v)
{
    uint64_t version, payload, rest, json_len;

    if (size >= 8 && memcmp(d, "CYPTRKNN", 8) == 0) {
        HAL_LOG_ERR("rknn model: encrypted model (CYPTRKNN magic) cannot be loaded");
        return RKNN_ERR_MODEL_INVALID;
    }
    if (size < 4 || memcmp(d, "RKNN", 4) != 0) {
        HAL_LOG_ERR("rknn model: no RKNN magic at offset 0 (file of %lu bytes)",
                    (unsigned long)size);
        return RKNN_ERR_MODEL_INVALID;
    }
    if (size < CONTAINER_MIN_HEADER) {
        HAL_LOG_ERR("rknn model: truncated header (%lu of %d bytes)", (unsigned long)size,
                    CONTAINER_MIN_HEADER);
        return RKNN_ERR_MODEL_INVALID;
    }
    version = rknn_fbs_le64(d + 8);
    if (!RKNN_CONTAINER_V4 && fmt_is_schema1(version)) {
        HAL_LOG_ERR("rknn model: container version %lu is not supported by this build (meson "
                    "option container_v4=false)",
                    (unsigned long)version);
        return RKNN_ERR_MODEL_INVALID;
    }
    if (version != RKNN_MODEL_CONTAINER_VERSION && !fmt_is_schema1(version)) {
        log_unsupported_version(version);
        return RKNN_ERR_MODEL_INVALID;
    }
    payload = rknn_fbs_le64(d + 16);
    if (size < CONTAINER_HEADER) {
        HAL_LOG_ERR("rknn model: truncated header (%lu of %d bytes)", (unsigned long)size,
                    CONTAINER_HEADER);
        return RKNN_ERR_MODEL_INVALID;
    }
    rest = size - CONTAINER_HEADER;
    if (payload == 0 || payload > RKNN_FBS_MAX_SIZE || payload > rest ||
        rest - payload < CONTAINER_JSON_LEN_SIZE) {
        HAL_LOG_ERR("rknn model: payload size field (offset 16) = 0x%08lx%08lx does not fit a "
                    "file of %lu bytes",
                    (unsigned long)(payload >> 32), (unsigned long)(payload & 0xffffffffu),
                    (unsigned long)size);
        return RKNN_ERR_MODEL_INVALID;
    }
    rest -= payload + CONTAINER_JSON_LEN_SIZE;
    json_len = rknn_fbs_le64(d + CONTAINER_HEADER + payload);
    if (json_len > rest) {
        HAL_LOG_ERR("rknn model: JSON length field (offset 0x%lx) = 0x%08lx%08lx exceeds the "
                    "%lu bytes left in the file",
                    (unsigned long)(CONTAINER_HEADER + payload), (unsigned long)(json_len >> 32),
                    (unsigned long)(json_len & 0xffffffffu), (unsigned long)rest);
        return RKNN_ERR_MODEL_INVALID;
    }
    v->file = d;
    v->file_size = size;
    v->container_version = (uint32_t)version;
    v->header_size = CONTAINER_HEADER;
    v->payload_offset = CONTAINER_HEADER;
    v->payload_size = (size_t)payload;
    v->json_offset = (size_t)(CONTAINER_HEADER + payload + CONTAINER_JSON_LEN_SIZE);
    v->json_size = (size_t)json_len;
    v->json = (const char *)d + v->json_offset;
    v->trailing_bytes = (size_t)(rest - json_len);
    return RKNN_SUCC;
}

/* ---- whole-model validation ----------------------------------------------- */

static int parse_model_strings(rknn_model_view *v)
{
    const struct {
        uint32_t slot;
        rknn_fbs_string *dst;
        const char *field;
    } fields[] = {
        {M_NPU_FAMILY, &v->npu_family, "NPU family (slot 1)"},
        {M_GENERATOR, &v->generator, "generator (slot 3)"},
        {M_COMPILER, &v->compiler, "compiler (slot 7)"},
        {M_TARGET, &v->target_platform, "target platform (slot 8)"},
        {M_SOURCE, &v->source_framework, "source framework (slot 9)"},
        {M_CUSTOM_STRING, &v->custom_string, "custom string (slot 11)"},
        {M_INPUT_JSON, &v->input_json, "input JSON (slot 12)"},
        {M_OUTPUT_JSON, &v->output_json, "output JSON (slot 13)"},
        {M_SHAPE_MODE, &v->shape_mode, "shape mode (slot 16)"},
        {M_CUSTOM_OP_TYPES, &v->custom_op_types, "custom op types (slot 21)"},
    };

    for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
        int ret = fmt_get_string_field(&v->fbs.model, fields[i].slot, fields[i].dst, "model", 0,
                                       fields[i].field);
        if (ret != RKNN_SUCC)
            return ret;
    }
    return RKNN_SUCC;
}

static int parse_model_table(rknn_model_view *v)
{
    int ret;

    if (!rknn_fbs_has_identifier(&v->fbs.fb, "RKNN")) {
        HAL_LOG_ERR("rknn model: payload (file offset 0x%lx) has no \"RKNN\" FlatBuffer "
                    "identifier at +4",
                    (unsigned long)v->payload_offset);
        return RKNN_ERR_MODEL_INVALID;
    }
    ret = rknn_fbs_root(&v->fbs.fb, &v->fbs.model);
    if (fmt_is_error(ret)) {
        HAL_LOG_ERR("rknn model: FlatBuffer root table: %s", rknn_fbs_strerror(ret));
        return RKNN_ERR_MODEL_INVALID;
    }
    if (fmt_is_error(ret = rknn_fbs_get_i32(&v->fbs.model, M_SCHEMA, 0, &v->schema_generation)))
        return fmt_fb_error("model", 0, "schema generation (slot 0)", &v->fbs.model, ret);
    if (v->schema_generation !=
        (fmt_is_v4(v) ? RKNN_MODEL_SCHEMA_V4 : RKNN_MODEL_SCHEMA_GENERATION)) {
        HAL_LOG_ERR("rknn model: schema generation (Model slot 0) is %ld; container %lu has %d",
                    (long)v->schema_generation, (unsigned long)v->container_version,
                    fmt_is_v4(v) ? RKNN_MODEL_SCHEMA_V4 : RKNN_MODEL_SCHEMA_GENERATION);
        return RKNN_ERR_MODEL_INVALID;
    }
    if (fmt_is_error(ret = rknn_fbs_get_u32(&v->fbs.model, M_COMPILER_CODE, 0, &v->compiler_code)))
        return fmt_fb_error("model", 0, "compiler version code (slot 6)", &v->fbs.model, ret);
    return parse_model_strings(v);
}

static int parse_blobs(rknn_model_view *v)
{
    const uint8_t *data;
    uint32_t size;
    int ret = fmt_get_vector_limited(&v->fbs.model, fmt_is_v4(v) ? M_V4_BLOBS : M_BLOBS, 4,
                                     RKNN_MODEL_MAX_BLOBS, &v->fbs.blobs, "model", 0,
                                     fmt_is_v4(v) ? "blob table (slot 4)" : "blob table (slot 20)");

    if (ret != RKNN_SUCC)
        return ret;
    v->n_blobs = v->fbs.blobs.count;
    if (v->n_blobs == 0) {
        HAL_LOG_ERR("rknn model: no blob table (Model slot %d)",
                    fmt_is_v4(v) ? M_V4_BLOBS : M_BLOBS);
        return RKNN_ERR_MODEL_INVALID;
    }
    for (uint32_t i = 0; i < v->n_blobs; i++) {
        ret = rknn_model_blob(v, i, &data, &size);
        if (ret != RKNN_SUCC)
            return ret;
    }
    return RKNN_SUCC;
}

static int open_graph(rknn_model_view *v)
{
    rknn_fbs_vector graphs;
    int ret = fmt_get_vector_limited(&v->fbs.model, M_GRAPHS, 4, RKNN_MODEL_MAX_GRAPHS, &graphs,
                                     "model", 0, "graphs (slot 2)");

    if (ret != RKNN_SUCC)
        return ret;
    v->n_graphs = graphs.count;
    if (graphs.count == 0) {
        HAL_LOG_ERR("rknn model: the model has no graph (Model slot 2 empty)");
        return RKNN_ERR_MODEL_INVALID;
    }
    ret = rknn_fbs_vec_table(&graphs, 0, &v->fbs.graph);
    return fmt_is_error(ret) ? fmt_elem_error("graph", 0, &graphs, ret) : RKNN_SUCC;
}

static int parse_graph_vectors(rknn_model_view *v)
{
    const rknn_fbs_table *g = &v->fbs.graph;
    int ret;

    ret = fmt_get_vector_limited(g, G_TENSORS, 4, RKNN_MODEL_MAX_TENSORS, &v->fbs.tensors, "graph",
                                 0, "tensors (slot 0)");
    if (ret == RKNN_SUCC)
        ret = fmt_get_vector_limited(g, G_NODES, 4, RKNN_MODEL_MAX_NODES, &v->fbs.nodes, "graph", 0,
                                     "nodes (slot 1)");
    if (ret == RKNN_SUCC)
        ret = fmt_get_vector_limited(g, G_INPUTS, 4, RKNN_MODEL_MAX_IO, &v->fbs.inputs, "graph", 0,
                                     "inputs (slot 2)");
    if (ret == RKNN_SUCC)
        ret = fmt_get_vector_limited(g, G_OUTPUTS, 4, RKNN_MODEL_MAX_IO, &v->fbs.outputs, "graph",
                                     0, "outputs (slot 3)");
    if (ret == RKNN_SUCC)
        ret = fmt_get_vector_limited(g, G_NORMS, 4, RKNN_MODEL_MAX_IO, &v->fbs.norms, "graph", 0,
                                     "norms (slot 4)");
    if (ret == RKNN_SUCC)
        ret = fmt_get_vector_limited(g, G_RELOCS, 4, RKNN_MODEL_MAX_RELOCS, &v->fbs.relocs, "graph",
                                     0, "relocations (slot 7)");
    v->n_tensors = v->fbs.tensors.count;
    v->n_nodes = v->fbs.nodes.count;
    v->n_inputs = v->fbs.inputs.count;
    v->n_outputs = v->fbs.outputs.count;
    v->n_norms = v->fbs.norms.count;
    v->n_relocs = v->fbs.relocs.count;
    return ret;
}

static int parse_all(const uint8_t *d, size_t size, rknn_model_view *v)
{
    int ret = parse_container(d, size, v);

    if (ret != RKNN_SUCC)
        return ret;
    if (rknn_fbs_buf_init(&v->fbs.fb, d + v->payload_offset, v->payload_size) != RKNN_FBS_OK)
        return RKNN_ERR_MODEL_INVALID;
    if ((ret = parse_model_table(v)) != RKNN_SUCC || (ret = parse_blobs(v)) != RKNN_SUCC ||
        (ret = open_graph(v)) != RKNN_SUCC || (ret = parse_graph_vectors(v)) != RKNN_SUCC ||
        (ret = fmt_validate_tensors(v)) != RKNN_SUCC ||
        (ret = fmt_validate_graph_io(v)) != RKNN_SUCC)
        return ret;
    if (fmt_is_v4(v)) /* the records and relocations are built later (rknn_model_lower) */
        return (ret = fmt_validate_v4(v)) != RKNN_SUCC ? ret : fmt_validate_nodes(v);
    if ((ret = fmt_validate_nodes(v)) != RKNN_SUCC || (ret = fmt_validate_tasks(v)) != RKNN_SUCC ||
        (ret = fmt_validate_task_order(v)) != RKNN_SUCC ||
        (ret = fmt_validate_relocs(v)) != RKNN_SUCC)
        return ret;
    return RKNN_SUCC;
}

int rknn_model_parse(const void *data, size_t size, rknn_model_view *out)
{
    int ret;

    if (!data || !out)
        return RKNN_ERR_PARAM_INVALID;
    memset(out, 0, sizeof(*out));
    ret = parse_all((const uint8_t *)data, size, out);
    if (ret != RKNN_SUCC) {
        memset(out, 0, sizeof(*out));
        return ret == RKNN_ERR_PARAM_INVALID ? RKNN_ERR_MODEL_INVALID : ret;
    }
    return RKNN_SUCC;
}

/* ---- moving a view to a copy of its file ----------------------------------- */

typedef struct {
    uintptr_t old_base;
    size_t size;
    const uint8_t *new_base;
} rebase_map;

/* The same byte in the copy; pointers outside the file (NULL, the reader's
 * static "" for absent strings) stay as they are. */
static const void *moved(const rebase_map *r, const void *p)
{
    uintptr_t off = (uintptr_t)p - r->old_base;

    return p && (uintptr_t)p >= r->old_base && off < r->size ? r->new_base + off : p;
}

void rknn_model_rebase(rknn_model_view *v, const void *copy)
{
    rebase_map r = {(uintptr_t)v->file, v->file_size, copy};
    rknn_fbs_string *strings[] = {
        &v->npu_family,       &v->generator,       &v->compiler,   &v->target_platform,
        &v->source_framework, &v->custom_string,   &v->input_json, &v->output_json,
        &v->shape_mode,       &v->custom_op_types,
    };
    rknn_fbs_vector *vectors[] = {&v->fbs.blobs,   &v->fbs.tensors, &v->fbs.nodes, &v->fbs.inputs,
                                  &v->fbs.outputs, &v->fbs.norms,   &v->fbs.relocs};

    v->file = copy;
    v->json = moved(&r, v->json);
    v->fbs.fb.data = moved(&r, v->fbs.fb.data);
    v->fbs.model.buf.data = moved(&r, v->fbs.model.buf.data);
    v->fbs.graph.buf.data = moved(&r, v->fbs.graph.buf.data);
    v->regcmd = moved(&r, v->regcmd);
    v->task_data = moved(&r, v->task_data);
    for (size_t i = 0; i < sizeof strings / sizeof strings[0]; i++)
        strings[i]->ptr = moved(&r, strings[i]->ptr);
    for (size_t i = 0; i < sizeof vectors / sizeof vectors[0]; i++)
        vectors[i]->buf.data = moved(&r, vectors[i]->buf.data);
}
