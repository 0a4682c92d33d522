/*
 * model_container.c - the .rknn container (header, FlatBuffer payload, JSON
 * trailer), the Model and Graph tables, the whole-model parse that validates
 * every table before any accessor is used, and moving a view onto a copy.
 * Format: docs/format.md (section numbers in the comments).
 */
#include "model_internal.h"

#include <stddef.h>
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
    static const struct {
        uint8_t slot;
        uint16_t offset; /* of the rknn_fbs_string */
        FMT_FIELD_NAME_MEMBER
    } fields[] = {
        {M_NPU_FAMILY, offsetof(rknn_model_view, npu_family) FMT_FIELD_NAME("NPU family (slot 1)")},
        {M_GENERATOR, offsetof(rknn_model_view, generator) FMT_FIELD_NAME("generator (slot 3)")},
        {M_COMPILER, offsetof(rknn_model_view, compiler) FMT_FIELD_NAME("compiler (slot 7)")},
        {M_TARGET,
         offsetof(rknn_model_view, target_platform) FMT_FIELD_NAME("target platform (slot 8)")},
        {M_SOURCE,
         offsetof(rknn_model_view, source_framework) FMT_FIELD_NAME("source framework (slot 9)")},
        {M_CUSTOM_STRING,
         offsetof(rknn_model_view, custom_string) FMT_FIELD_NAME("custom string (slot 11)")},
        {M_INPUT_JSON,
         offsetof(rknn_model_view, input_json) FMT_FIELD_NAME("input JSON (slot 12)")},
        {M_OUTPUT_JSON,
         offsetof(rknn_model_view, output_json) FMT_FIELD_NAME("output JSON (slot 13)")},
        {M_SHAPE_MODE,
         offsetof(rknn_model_view, shape_mode) FMT_FIELD_NAME("shape mode (slot 16)")},
        {M_CUSTOM_OP_TYPES,
         offsetof(rknn_model_view, custom_op_types) FMT_FIELD_NAME("custom op types (slot 21)")},
    };

    for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
        rknn_fbs_string *dst = (rknn_fbs_string *)(void *)((uint8_t *)v + fields[i].offset);
        int ret = fmt_get_string_field(&v->fbs.model, fields[i].slot, dst, "model", 0,
                                       FMT_NAME_OF(&fields[i]));
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
    /* an int32 in the file: the u32's bytes */
    if (fmt_is_error(ret = rknn_fbs_get_u32(&v->fbs.model, M_SCHEMA, 0,
                                            (uint32_t *)(void *)&v->schema_generation)))
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

_Static_assert(RKNN_MODEL_MAX_TENSORS <= UINT16_MAX && RKNN_MODEL_MAX_NODES <= UINT16_MAX &&
                   RKNN_MODEL_MAX_IO <= UINT16_MAX && RKNN_MODEL_MAX_RELOCS <= UINT16_MAX,
               "parse_graph_vectors keeps the limits in 16 bits");

static int parse_graph_vectors(rknn_model_view *v)
{
    static const struct {
        uint8_t slot;
        uint16_t limit;         /* entries at most */
        uint16_t vector, count; /* offsetof the rknn_fbs_vector and the view's n_ count */
        FMT_FIELD_NAME_MEMBER
    } fields[] = {
        {G_TENSORS, RKNN_MODEL_MAX_TENSORS, offsetof(rknn_model_view, fbs.tensors),
         offsetof(rknn_model_view, n_tensors) FMT_FIELD_NAME("tensors (slot 0)")},
        {G_NODES, RKNN_MODEL_MAX_NODES, offsetof(rknn_model_view, fbs.nodes),
         offsetof(rknn_model_view, n_nodes) FMT_FIELD_NAME("nodes (slot 1)")},
        {G_INPUTS, RKNN_MODEL_MAX_IO, offsetof(rknn_model_view, fbs.inputs),
         offsetof(rknn_model_view, n_inputs) FMT_FIELD_NAME("inputs (slot 2)")},
        {G_OUTPUTS, RKNN_MODEL_MAX_IO, offsetof(rknn_model_view, fbs.outputs),
         offsetof(rknn_model_view, n_outputs) FMT_FIELD_NAME("outputs (slot 3)")},
        {G_NORMS, RKNN_MODEL_MAX_IO, offsetof(rknn_model_view, fbs.norms),
         offsetof(rknn_model_view, n_norms) FMT_FIELD_NAME("norms (slot 4)")},
        {G_RELOCS, RKNN_MODEL_MAX_RELOCS, offsetof(rknn_model_view, fbs.relocs),
         offsetof(rknn_model_view, n_relocs) FMT_FIELD_NAME("relocations (slot 7)")},
    };

    for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
        rknn_fbs_vector *vec = (rknn_fbs_vector *)(void *)((uint8_t *)v + fields[i].vector);
        int ret = fmt_get_vector_limited(&v->fbs.graph, fields[i].slot, 4, fields[i].limit, vec,
                                         "graph", 0, FMT_NAME_OF(&fields[i]));
        if (ret != RKNN_SUCC)
            return ret;
        *(uint32_t *)(void *)((uint8_t *)v + fields[i].count) = vec->count;
    }
    return RKNN_SUCC;
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
        return fmt_validate_v4(v); /* and the nodes, with the groups the lowering builds */
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
    /* the view's strings and vectors, as offsets in it (a table in the
     * image instead of building an array of pointers at each call) */
    static const uint16_t strings[] = {
        offsetof(rknn_model_view, npu_family),       offsetof(rknn_model_view, generator),
        offsetof(rknn_model_view, compiler),         offsetof(rknn_model_view, target_platform),
        offsetof(rknn_model_view, source_framework), offsetof(rknn_model_view, custom_string),
        offsetof(rknn_model_view, input_json),       offsetof(rknn_model_view, output_json),
        offsetof(rknn_model_view, shape_mode),       offsetof(rknn_model_view, custom_op_types),
    };
    static const uint16_t vectors[] = {
        offsetof(rknn_model_view, fbs.blobs),   offsetof(rknn_model_view, fbs.tensors),
        offsetof(rknn_model_view, fbs.nodes),   offsetof(rknn_model_view, fbs.inputs),
        offsetof(rknn_model_view, fbs.outputs), offsetof(rknn_model_view, fbs.norms),
        offsetof(rknn_model_view, fbs.relocs),
    };

    v->file = copy;
    v->json = moved(&r, v->json);
    v->fbs.fb.data = moved(&r, v->fbs.fb.data);
    v->fbs.model.buf.data = moved(&r, v->fbs.model.buf.data);
    v->fbs.graph.buf.data = moved(&r, v->fbs.graph.buf.data);
    v->regcmd = moved(&r, v->regcmd);
    v->task_data = moved(&r, v->task_data);
    for (size_t i = 0; i < sizeof strings / sizeof strings[0]; i++) {
        rknn_fbs_string *f = (rknn_fbs_string *)(void *)((uint8_t *)v + strings[i]);
        f->ptr = moved(&r, f->ptr);
    }
    for (size_t i = 0; i < sizeof vectors / sizeof vectors[0]; i++) {
        rknn_fbs_vector *f = (rknn_fbs_vector *)(void *)((uint8_t *)v + vectors[i]);
        f->buf.data = moved(&r, f->buf.data);
    }
}
