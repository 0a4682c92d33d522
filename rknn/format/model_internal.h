/*
 * model_internal.h - what the format layer's files share: the container and
 * FlatBuffer slot numbers of the .rknn schema (docs/format.md) and the
 * decoding, logging and validation helpers. Nothing outside rknn/format/
 * includes it.
 *
 * The files form a one-way stack, bottom to top (rknn_format.c includes
 * them in this order; the `layers` test, tests/tools/check_layers.py, fails
 * on a call from a file to one above it):
 *   rknn_fbs.c          the bounds-checked FlatBuffer reader
 *   model_fields.c      one field of a table: vectors, strings, shapes, errors
 *   model_attrs.c       BSON attribute documents
 *   model_tensors.c     blobs, tensors, the graph's inputs, outputs, norms
 *   model_v4_access.c   containers 4 and 2 as read: task tables, register
 *                       lists, the lowered payload's relocation tables
 *   model_nodes.c       nodes
 *   model_exec.c        relocations, task records, the stream's words and
 *                       chain links, task groups and steps
 *   model_check.c       SoC compatibility, stream and relocation checks
 *   model_plan.c        the memory plan
 *   model_reloc.c       relocation
 *   model_v4.c          containers 4 and 2 checked and lowered
 *   model_container.c   the container, rknn_model_parse, rebasing a view
 * The declarations below follow the same order. What a .c file keeps to
 * itself (static functions and tables, macros, types) no other file uses:
 * what files share is declared here, so that they would also compile one
 * by one.
 *
 * rknn_model_parse (model_container.c) runs the whole-model validation
 * steps fmt_validate_*: tensors, graph inputs and outputs, nodes, tasks,
 * task order, relocations; on containers 4 and 2, fmt_validate_v4 before the
 * nodes, and rknn_model_lower the last three on the payload it built.
 */
#ifndef RKNN_MODEL_INTERNAL_H
#define RKNN_MODEL_INTERNAL_H

#include "hal.h"
#include "rknn_model.h"

/* The format layer is compiled as one translation unit (rknn_format.c
 * includes its files), so that these helpers stay internal and the compiler
 * inlines them as it did when the parser was one file: FMT_API is static
 * there. */
#ifndef FMT_API
#define FMT_API
#endif

/* Tables of fields (slot, where the result goes) carry each field's name
 * for the error log only in builds with log strings: log_strings=false
 * keeps no text, the log gives the call site. An entry ends with
 * FMT_FIELD_NAME("name"), its struct with FMT_FIELD_NAME_MEMBER, and
 * FMT_NAME_OF(entry) is the name or NULL. */
#if HAL_LOG_STRINGS
#define FMT_FIELD_NAME(name)  , name
#define FMT_FIELD_NAME_MEMBER const char *name;
#define FMT_NAME_OF(entry)    ((entry)->name)
#else
#define FMT_FIELD_NAME(name)
#define FMT_FIELD_NAME_MEMBER
#define FMT_NAME_OF(entry) NULL
#endif

/* Container header (format.md §2): magic, u32 zero, u64 version, u64 payload size,
 * 40 reserved bytes, then the payload and a u64-length-prefixed JSON. */
#define CONTAINER_MIN_HEADER    24
#define CONTAINER_HEADER        64
#define CONTAINER_JSON_LEN_SIZE 8

/* Model slots (format.md §3.1). */
enum {
    M_SCHEMA = 0,
    M_NPU_FAMILY = 1,
    M_GRAPHS = 2,
    M_GENERATOR = 3,
    M_COMPILER_CODE = 6,
    M_COMPILER = 7,
    M_TARGET = 8,
    M_SOURCE = 9,
    M_CUSTOM_STRING = 11,
    M_INPUT_JSON = 12,
    M_OUTPUT_JSON = 13,
    M_SHAPE_MODE = 16,
    M_BLOBS = 20,
    M_CUSTOM_OP_TYPES = 21,
    M_V4_BLOBS = 4, /* containers 4, 2: the [Blob] table (format.md §5.1) */
};

/* Graph slots (format.md §3.2). */
enum { G_TENSORS = 0, G_NODES = 1, G_INPUTS = 2, G_OUTPUTS = 3, G_NORMS = 4, G_RELOCS = 7 };

/* Node slots (format.md §3.3). */
enum {
    N_TYPE = 1,
    N_NAME = 2,
    N_EXECUTOR = 3,
    N_INPUTS = 4,
    N_OUTPUTS = 5,
    N_ATTRS = 9,
    N_TASKS_PER_SLOT = 10,
};

/* Tensor slots (format.md §3.4). */
enum {
    T_DTYPE = 0,
    T_LAYOUT = 1,
    T_KIND = 2,
    T_NATIVE_SHAPE = 3,
    T_SHAPE = 4,
    T_NAME = 5,
    T_QMETHOD = 6,
    T_QDTYPE = 7,
    T_QSCALE = 10,
    T_QZP = 11,
    T_SIZE = 12,
    T_OFFSET = 13,
    T_COMPRESSED = 14,
    T_BLOB = 18,
};

enum { BLOB_DATA = 0 };                               /* Blob slots (format.md §3.1) */
enum { RELOC_NAME = 0, RELOC_ENTRIES = 1 };           /* Reloc slots (format.md §4.3) */
enum { NORM_MEAN = 0, NORM_STD = 1, NORM_ORDER = 2 }; /* Norm slots (format.md §3.2) */

#define RELOC_ENTRY_SIZE 8 /* {u32 addend, u32 word_index} */

/* A schema-1 container: 4 or 2 (format.md §5.1, §5.2), register lists,
 * payload built by rknn_model_lower. "v4" names this path in the code
 * (model_v4.c, the meson option container_v4): container 2 shares it. */
static inline int fmt_is_schema1(uint64_t version)
{
    return version == RKNN_MODEL_CONTAINER_V4 || version == RKNN_MODEL_CONTAINER_V2;
}

/* A stream word read in place (a stream's bytes may be any array's). */
typedef uint64_t __attribute__((may_alias)) fmt_word;

/* A view of one; never without the option (parse_container refuses them),
 * so that its branches compile away there. */
static inline int fmt_is_v4(const rknn_model_view *v)
{
    return RKNN_CONTAINER_V4 && fmt_is_schema1(v->container_version);
}

/* ---- model_fields.c ---------------------------------------------------- */

/* Logging helpers: each logs one line and returns RKNN_ERR_MODEL_INVALID. */
FMT_API int fmt_fb_error(const char *item, uint32_t index, const char *field,
                         const rknn_fbs_table *table, int err);
FMT_API int fmt_elem_error(const char *item, uint32_t index, const rknn_fbs_vector *vec, int err);
FMT_API int fmt_limit_error(const char *what, uint32_t count, uint32_t limit);
FMT_API int fmt_is_error(int fbs_ret);

/* Decoding helpers. */
FMT_API int fmt_get_vector_limited(const rknn_fbs_table *t, uint32_t slot, uint32_t elem_size,
                                   uint32_t limit, rknn_fbs_vector *out, const char *item,
                                   uint32_t index, const char *field);
FMT_API int fmt_get_string_field(const rknn_fbs_table *t, uint32_t slot, rknn_fbs_string *out,
                                 const char *item, uint32_t index, const char *field);
FMT_API int fmt_get_shape(const rknn_fbs_table *t, uint32_t slot, uint32_t index, const char *field,
                          int32_t *dims, uint32_t *n_dims);
FMT_API int fmt_check_view(const rknn_model_view *view);

/* ---- model_attrs.c ----------------------------------------------------- */

/* BSON attribute blobs: the blob's first bytes look like a BSON document;
 * the document is well formed (count: its top-level elements). */
FMT_API int fmt_bson_is_document(const uint8_t *d, uint32_t avail);
FMT_API int fmt_bson_validate(const uint8_t *d, uint32_t avail, uint32_t depth, uint32_t *count);

/* ---- model_tensors.c --------------------------------------------------- */

/* Entry i of a list of tensor indices (graph inputs or outputs, a node's). */
FMT_API int fmt_index_from_list(const rknn_fbs_vector *v, uint32_t i, uint32_t limit,
                                uint32_t *out);
FMT_API int fmt_validate_tensors(rknn_model_view *v);
FMT_API int fmt_validate_graph_io(rknn_model_view *v);

/* ---- model_v4_access.c ------------------------------------------------- */

/* Containers 4 and 2: a node's task count per core slot (format.md §4.2's
 * slots; *n_slots 0 for a node without tasks); relocation table i of a
 * lowered view (both stubs when container_v4=false). */
FMT_API int fmt_v4_node_task_count(const rknn_model_view *v, uint32_t node, uint32_t *counts,
                                   uint32_t *n_slots);
FMT_API int fmt_v4_reloc(const rknn_model_view *v, uint32_t i, rknn_model_reloc_info *out);
#if RKNN_CONTAINER_V4
#define V4_ENTRY_SIZE 8 /* u16 0, u16 register (the SoC's own offset), u32 value */
#define V4_NO_LUT     UINT32_MAX

/* One task of a node as read from its task table (format.md §5.1, §5.2). */
typedef struct {
    uint32_t lut; /* kind-6 tensor the task needs in the DPU, or V4_NO_LUT */
    uint32_t enable;
    uint32_t int_mask;      /* the units' done bits the task completes with */
    uint32_t n_cores;       /* the core configuration it belongs to: 1 to 3 cores */
    uint32_t slot;          /* its core slot (format.md §4.2): configuration and core */
    const uint8_t *entries; /* the register list */
    uint32_t n_entries;
} v4_task;

/* The payload rknn_model_lower() builds: stream | records | relocation
 * entries | per tensor its first entry (n_tensors + 1) | the relocated
 * tensors in index order (n_tensors). */
typedef struct {
    uint32_t records, entries, first, relocated, total;
} v4_layout;

FMT_API int fmt_v4_reglist(const rknn_model_view *v, uint32_t tensor, int8_t kind, uint32_t node,
                           uint32_t task, const uint8_t **entries, uint32_t *n_entries);
FMT_API int fmt_v4_read_task(const rknn_model_view *v, const rknn_fbs_vector *tasks, uint32_t node,
                             uint32_t i, v4_task *out);
FMT_API int fmt_v4_task_tables(const rknn_model_view *v, uint32_t node, rknn_fbs_vector *out);
FMT_API uint32_t fmt_v4_lut_part_end(const uint8_t *entries, uint32_t n, uint32_t from);
FMT_API int fmt_v4_lut_loads(const rknn_model_view *v, const v4_task *t, uint32_t node, uint32_t i,
                             uint32_t *count);
FMT_API v4_layout fmt_v4_layout_of(const rknn_model_view *v);
#endif

/* ---- model_nodes.c ----------------------------------------------------- */

/* Node slot 10: the tasks node `t` adds to each core slot. */
FMT_API int fmt_node_task_counts(const rknn_fbs_table *t, uint32_t index, uint32_t *counts,
                                 uint32_t *n_slots);
FMT_API int fmt_validate_nodes(rknn_model_view *v);

/* ---- model_exec.c ------------------------------------------------------ */

FMT_API uint64_t fmt_stream_word(const rknn_model_view *m, uint32_t index);
FMT_API int fmt_links_to_record(const rknn_model_view *m, const rknn_model_task_info *a,
                                const rknn_model_task_info *b);
FMT_API int fmt_validate_tasks(const rknn_model_view *v);
FMT_API int fmt_validate_task_order(const rknn_model_view *v);
FMT_API int fmt_validate_relocs(rknn_model_view *v);
/* rknn_model_node; `whole` 0 leaves out what container 4's lowering walk
 * does not read and reads again on its own: the task counts per core slot
 * of a container-4 node (n_core_slots, tasks_per_slot) and the attributes. */
FMT_API int fmt_node_read(const rknn_model_view *view, uint32_t index, int whole,
                          rknn_model_node_info *out);

/* ---- model_check.c ----------------------------------------------------- */

/* Shared with the plan, relocation and container 4. */
FMT_API int fmt_is_activation(int kind);
FMT_API int fmt_is_constant(int kind);
FMT_API int fmt_blob_is_weight(const rknn_model_view *m, uint32_t b);
FMT_API int fmt_is_address_word(uint64_t w);
FMT_API int fmt_check_tasks(const rknn_model_view *m, const npu_soc_profile *soc);
FMT_API int fmt_tensor_extent(const rknn_model_view *m, const rknn_model_tensor_info *t,
                              uint32_t *extent);
/* Checks one relocation table; marks its words in `patched` (may be NULL)
 * and hands back the table and its tensor (out_ri/out_t may be NULL). */
FMT_API int fmt_check_reloc(const rknn_model_view *m, uint32_t r, uint32_t *patched,
                            rknn_model_reloc_info *out_ri, rknn_model_tensor_info *out_t);
FMT_API int fmt_check_unrelocated(const rknn_model_view *m, const uint32_t *patched);

/* ---- model_plan.c ------------------------------------------------------ */

FMT_API int fmt_weight_layout(const rknn_model_view *m, uint32_t *offsets, uint8_t *weights,
                              uint32_t *total);

/* ---- model_reloc.c ----------------------------------------------------- */

FMT_API void fmt_put_word(uint8_t *stream, uint32_t index, uint64_t w);

/* ---- model_v4.c -------------------------------------------------------- */

/* Containers 4 and 2: count and check what rknn_model_lower() builds, and
 * validate the nodes (fmt_validate_nodes) with the groups it lays out. */
FMT_API int fmt_validate_v4(rknn_model_view *v);

#endif
