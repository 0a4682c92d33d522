/*
 * rknn_model.h - parser for RKNN-Toolkit2 .rknn files (container version 6).
 *
 * rknn_model_parse() checks a whole model once (container, FlatBuffer, every
 * tensor, node, relocation, task record) and fills a small fixed-size view
 * that points into the caller's blob: nothing is copied or allocated, so the
 * blob must stay valid (and unchanged) while the view is used. The blob may
 * sit in flash. The accessors below decode one tensor / node / relocation /
 * ... on demand from the blob; they re-check every bound, so they fail
 * cleanly (RKNN_ERR_MODEL_INVALID or RKNN_ERR_PARAM_INVALID) instead of
 * crashing even if they are handed a view that does not match the blob.
 *
 * Layout facts are from docs/format.md (section numbers in the
 * comments). Field meanings marked "inferred" are observations on the sample
 * models, not documented by the vendor.
 */
#ifndef RKNN_MODEL_H
#define RKNN_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "npu_regcmd.h"
#include "npu_soc.h"
#include "rknn_fbs.h"
#include "rknn_limits.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Limits: rknn_limits.h. */

/* The container versions / schema generations this parser reads: 6 / 6
 * (RKNN-Toolkit2 >= 1.6: stream, task records and relocations in the file),
 * and 4 / 1 ("RKNPU lite") and 2 / 1 (toolkit 1.x: per-task register lists,
 * from which rknn_model_lower() builds the same payload;
 * format.md §5.1, §5.2). */
#define RKNN_MODEL_CONTAINER_VERSION 6
#define RKNN_MODEL_SCHEMA_GENERATION 6
#define RKNN_MODEL_CONTAINER_V4      4
#define RKNN_MODEL_CONTAINER_V2      2
#define RKNN_MODEL_SCHEMA_V4         1

/* Bytes of one task record (struct rknpu_task layout, format.md §4.2) and regcmd word. */
#define RKNN_MODEL_TASK_RECORD_SIZE NPU_TASK_RECORD_SIZE
#define RKNN_MODEL_REGCMD_WORD_SIZE 8

/* Tensor kind (Tensor slot 2, format.md §3.4). */
enum {
    RKNN_MODEL_KIND_NULL = 0,
    RKNN_MODEL_KIND_INPUT = 1,
    RKNN_MODEL_KIND_OUTPUT = 2,
    RKNN_MODEL_KIND_INTERNAL = 3,
    RKNN_MODEL_KIND_CONST = 4,
    RKNN_MODEL_KIND_HELPER_CONST = 5,
    /* A raw blob named after an activation ("Sigmoid", "HardSwish"): its LUT
     * as (register, value) pairs; the LUT-loading task's DPU reads and writes
     * it as a scratch operand (format.md §3.4, §4.2). Seen from toolkit 2.3. */
    RKNN_MODEL_KIND_LUT = 6,
    RKNN_MODEL_KIND_REGLIST_OLD = 7,
    RKNN_MODEL_KIND_GENERATED_CONST = 8,
    RKNN_MODEL_KIND_REGCMD = 9,
    RKNN_MODEL_KIND_TASKS = 10,
};

/* Tensor dtype (Tensor slot 0, the file's own enum, format.md §3.4). */
enum {
    RKNN_MODEL_DTYPE_INT32 = 1,
    RKNN_MODEL_DTYPE_INT8 = 3,
    RKNN_MODEL_DTYPE_INT16 = 5,
    RKNN_MODEL_DTYPE_FLOAT32 = 6,
    RKNN_MODEL_DTYPE_INT64 = 7,
    RKNN_MODEL_DTYPE_FLOAT16 = 10,
    RKNN_MODEL_DTYPE_RAW = 13,
};

/* Node executor (Node slot 3): 2 = runs on the NPU (has tasks). */
#define RKNN_MODEL_EXECUTOR_NPU 2

/* One PC chain: tasks [first, first + count) of the task blob. */
typedef struct {
    uint32_t first;
    uint32_t count;
} rknn_model_task_range;

/* A string in the file: pointer and length, NOT NUL-terminated. */
typedef rknn_fbs_string rknn_model_string;

/* A list in the file (tensor scales, node inputs, relocation entries, ...),
 * read only through its accessor, which checks every index. */
typedef rknn_fbs_vector rknn_model_list;

/* Copy a model string into buf as a C string, truncated to cap - 1 bytes. */
static inline void rknn_model_string_copy(rknn_model_string s, char *buf, size_t cap)
{
    rknn_fbs_string_copy(s, buf, cap);
}

/* Little-endian fields of the file's blobs (regcmd words, attribute values). */
static inline uint32_t rknn_model_le32(const uint8_t *p)
{
    return rknn_fbs_le32(p);
}

static inline uint64_t rknn_model_le64(const uint8_t *p)
{
    return rknn_fbs_le64(p);
}

typedef struct {
    /* ---- container (format.md §2) ---- */
    const uint8_t *file;
    size_t file_size;
    uint32_t container_version; /* 6, 4 or 2 after a successful parse */
    size_t header_size;         /* 64 */
    size_t payload_offset;      /* FlatBuffer start in the file */
    size_t payload_size;
    const char *json;   /* JSON trailer, NOT NUL-terminated */
    size_t json_offset; /* file offset of the JSON text */
    size_t json_size;
    size_t trailing_bytes; /* bytes after the JSON (0 for toolkit-2) */

    /* ---- FlatBuffer handles: the format layer's own. Code above it reads
     *      the model through the accessors below (test 'layers' checks) ---- */
    struct {
        rknn_fbs_buf fb; /* the payload */
        rknn_fbs_table model;
        rknn_fbs_table graph;    /* graph 0 */
        rknn_fbs_vector blobs;   /* Model slot 20 (containers 4, 2: slot 4): [Blob] */
        rknn_fbs_vector tensors; /* Graph slot 0: [Tensor] */
        rknn_fbs_vector nodes;   /* Graph slot 1: [Node] */
        rknn_fbs_vector inputs;  /* Graph slot 2: [int] tensor indices */
        rknn_fbs_vector outputs; /* Graph slot 3: [int] tensor indices */
        rknn_fbs_vector norms;   /* Graph slot 4: [Norm], one per input */
        rknn_fbs_vector relocs;  /* Graph slot 7: [Reloc] */
    } fbs;

    /* ---- Model (root table, format.md §3.1) ---- */
    int32_t schema_generation;          /* slot 0: 6 (container 6) or 1 (containers 4, 2) */
    uint32_t compiler_code;             /* slot 6, MMmmpp (10602 = 1.6.2) */
    rknn_model_string npu_family;       /* slot 1: "RKNPU v2", "RKNPU lite", ... */
    rknn_model_string generator;        /* slot 3: Python-literal dict */
    rknn_model_string compiler;         /* slot 7: compiler version string */
    rknn_model_string target_platform;  /* slot 8: "rk3588", "rk3566", ... */
    rknn_model_string source_framework; /* slot 9: "ONNX" */
    rknn_model_string
        custom_string;             /* slot 11 (inferred): rknn.config(custom_string=); "" if none */
    rknn_model_string input_json;  /* slot 12: native I/O dtype/layout JSON */
    rknn_model_string output_json; /* slot 13 */
    rknn_model_string shape_mode;  /* slot 16: "static_shape" */
    rknn_model_string custom_op_types; /* slot 21 (inferred): custom op types used, "" if none */
    uint32_t n_graphs;

    /* ---- table sizes ---- */
    uint32_t n_blobs, n_tensors, n_nodes, n_inputs, n_outputs, n_norms, n_relocs;
    uint32_t n_reloc_entries; /* sum over all relocation tables */

    /* ---- execution payload (format.md §4) ---- */
    uint32_t regcmd_tensor;          /* index of the kind-9 tensor */
    uint32_t task_tensor;            /* index of the kind-10 tensor */
    uint32_t regcmd_blob, task_blob; /* their blobs: not weights */
    /* Container 6: the blobs of LUT tensors (kind 6), not weights either:
     * the stream loads each table through registers, and the load's dummy
     * DPU op is pointed at the stream (format.md §4.3), as the vendor does. */
    uint32_t n_lut_blobs;
    uint32_t lut_blobs[RKNN_MODEL_MAX_LUT_BLOBS];
    const uint8_t *regcmd; /* regcmd words, 8 bytes each, little endian */
    uint32_t regcmd_size;  /* bytes */
    uint32_t n_regcmd_words;
    /* 0, or the stream's DMA address once it was relocated where it lies
     * (rknn_init does so for the one context that owns that memory,
     * format.md §4.4): its chain links then hold regcmd_dma + their stream
     * offset and its address words the addresses patched in; the relocation
     * tables keep the offsets, so a copy relocated from it comes out as one
     * relocated from the file. */
    uint32_t regcmd_dma;
    const uint8_t *task_data; /* task records, 40 bytes each */
    uint32_t n_tasks;
    /* Task groups in blob order (format.md §4.2): RK3588 (6 slots) = [1-core |
     * 2-core c0, c1 | 3-core c0, c1, c2], RK356x (1 slot) = one group. The
     * multi-core groups hold their Node slot-10 sums, the 1-core group the
     * records before them. In every group the records are in node order
     * (op_idx). Use rknn_model_task_group() and the records' op_idx. */
    uint32_t n_core_slots;
    rknn_model_task_range groups[RKNN_MODEL_MAX_CORE_SLOTS];
    uint32_t max_cores; /* core configurations: 1 slot -> 1, 3 -> 2, 6 -> 3 */
    /* 1 + the node of the OutputOperator the NPU executes (RK3566 v6), 0
     * if none: never a step (rknn_model_output_form runs its records) */
    uint16_t output_copy;
    uint16_t output_copy_scratch; /* its second input: the scratch tensor */

    /* Activation arena: max(offset + size) over input/output/internal tensors. */
    uint64_t arena_size;

    /* ---- containers 4 and 2 (format.md §5.1, §5.2): the file has no
     *      stream, records or relocations. The parse counts what rknn_model_lower() will build
     *      (n_tasks, regcmd_size, n_reloc_entries, the groups); regcmd,
     *      task_data and the relocations exist once `lowered` is set. ---- */
    const uint8_t *lowered; /* the built payload; NULL before (and for container 6) */
    uint32_t lowered_size;  /* bytes rknn_model_lower() needs */
    /* Copies of the single-core group, one per core (0 or 1: one for all),
     * each after the last: a run on core c takes copy c (format.md §5.2). */
    uint8_t single_core_copies;

    /* Optional, set by rknn_init while it runs: [n_relocs] the tensor each
     * relocation names once looked up (RKNN_MODEL_RELOC_UNRESOLVED until
     * then), so its passes over the relocations do not search the tensors
     * by name again. NULL: every look-up searches. */
    uint16_t *reloc_tensor_memo;
} rknn_model_view;

#define RKNN_MODEL_RELOC_UNRESOLVED 0xFFFFu

typedef struct {
    rknn_model_string name; /* slot 5; also the relocation key */
    int8_t dtype;           /* slot 0, RKNN_MODEL_DTYPE_* */
    int8_t layout_class;    /* slot 1: 64 feature map, 65 weight (inferred) */
    int8_t kind;            /* slot 2, RKNN_MODEL_KIND_* */
    uint8_t compressed;     /* slot 14: 1 = DCOMP-compressed weights */
    uint32_t n_native_dims; /* slot 3: native shape, e.g. [N, C1, H, W, C2] */
    int32_t native_dims[RKNN_MODEL_MAX_DIMS];
    uint32_t n_dims; /* slot 4: original shape (NCHW / OIHW) */
    int32_t dims[RKNN_MODEL_MAX_DIMS];
    rknn_model_string quant_method; /* slot 6: "layer" / "channel" / "" */
    rknn_model_string quant_dtype;  /* slot 7: "int8" / "" */
    uint32_t n_scales;              /* slot 10 */
    uint32_t n_zero_points;         /* slot 11 */
    rknn_model_list scales;         /* [float], read with rknn_model_tensor_scale() */
    rknn_model_list zero_points;    /* [int32], read with rknn_model_tensor_zero_point() */
    uint32_t size;                  /* slot 12: bytes of the native tensor */
    uint32_t arena_offset;          /* slot 13: offset in the activation arena */
    uint32_t blob_index;            /* slot 18 */
    /* Blob bytes for kinds CONST / GENERATED_CONST / REGCMD / TASKS, else NULL. */
    const uint8_t *data;
    uint32_t data_size;
    uint8_t c1_from_size; /* container 2: the size, not the native C1, counts surfaces */
} rknn_model_tensor_info;

typedef struct {
    rknn_model_string op_type; /* slot 1: "Conv", "ConvAdd", "InputOperator", "cst..." */
    rknn_model_string name;    /* slot 2 */
    uint8_t executor;          /* slot 3: RKNN_MODEL_EXECUTOR_NPU or 0 */
    uint32_t n_inputs;         /* slot 4 */
    uint32_t n_outputs;        /* slot 5 */
    rknn_model_list inputs;    /* read with rknn_model_node_input() */
    rknn_model_list outputs;   /* read with rknn_model_node_output() */
    uint32_t n_core_slots;     /* slot 10 length: 0, 1 or 6 */
    uint32_t tasks_per_slot[RKNN_MODEL_MAX_CORE_SLOTS];
    /* Operator attributes (slot 9, inferred): a BSON document
     * {name: {"dtype": <type code>, "value": <value>}}; NULL if the slot holds
     * something else (e.g. OutputOperator's 16 bytes) or nothing. */
    const uint8_t *attrs;
    uint32_t attrs_size;
    uint32_t n_attrs;
    uint32_t tensor_limit; /* n_tensors of the view, for index checks */
} rknn_model_node_info;

/* BSON element types that can appear in an attribute value. */
enum {
    RKNN_MODEL_ATTR_DOUBLE = 0x01, /* 8 bytes, IEEE double */
    RKNN_MODEL_ATTR_STRING = 0x02, /* value = the characters, no NUL */
    RKNN_MODEL_ATTR_DOCUMENT = 0x03,
    RKNN_MODEL_ATTR_ARRAY = 0x04,  /* elements via rknn_model_attr_elem() */
    RKNN_MODEL_ATTR_BINARY = 0x05, /* value = the bytes (subtype skipped) */
    RKNN_MODEL_ATTR_BOOL = 0x08,   /* 1 byte */
    RKNN_MODEL_ATTR_NULL = 0x0a,   /* 0 bytes */
    RKNN_MODEL_ATTR_INT32 = 0x10,  /* 4 bytes */
    RKNN_MODEL_ATTR_INT64 = 0x12,  /* 8 bytes */
};

/* One operator attribute, e.g. cstDualResidual: name "alpha", dtype "f",
 * value_type RKNN_MODEL_ATTR_DOUBLE, value -> 8 bytes of 0.5. */
typedef struct {
    rknn_model_string name;
    rknn_model_string dtype; /* toolkit type code: "f", "i", "is", "fs", "s"...; "" if none */
    uint8_t value_type;      /* RKNN_MODEL_ATTR_*, 0 if no "value" */
    const uint8_t *value;    /* raw little-endian value bytes (see types) */
    uint32_t value_size;
    uint32_t n_elems; /* elements of arrays; 1 for scalars and strings (length
                                  * in value_size); 0 if there is no value */
} rknn_model_attr;

/* One element of an attribute value (arrays: element i; scalars: i == 0). */
typedef struct {
    uint8_t type; /* RKNN_MODEL_ATTR_* */
    const uint8_t *data;
    uint32_t size;
} rknn_model_attr_value;

typedef struct {
    rknn_model_string tensor_name; /* slot 0 */
    uint32_t tensor_index;         /* first tensor with that name */
    uint32_t n_entries;            /* slot 1: [{u32 addend, u32 word_index}] */
    rknn_model_list entries;       /* read with rknn_model_reloc_entry() */
    uint32_t word_limit;           /* n_regcmd_words of the view */
} rknn_model_reloc_info;

typedef struct {
    uint32_t n_channels;   /* entries of mean/std (4 in the samples) */
    rknn_model_list mean;  /* slot 0, [float] */
    rknn_model_list std;   /* slot 1, [float] */
    rknn_model_list order; /* slot 2, [int] channel order (inferred) */
} rknn_model_norm_info;

/* One task record, struct rknpu_task layout (format.md §4.2). regcmd_addr is a byte
 * offset into the regcmd blob in the file. */
typedef struct {
    uint32_t flags;
    uint32_t op_idx;
    uint32_t enable_mask;
    uint32_t int_mask;
    uint32_t int_clear;
    uint32_t int_status;
    uint32_t regcfg_amount; /* register words of the task */
    uint32_t regcfg_offset;
    uint64_t regcmd_addr;
} rknn_model_task_info;

/* Parse and validate a whole .rknn file. Returns RKNN_SUCC,
 * RKNN_ERR_PARAM_INVALID (NULL arguments) or RKNN_ERR_MODEL_INVALID (any
 * problem with the file; one HAL_LOG_ERR line says which field at which
 * offset). On failure *out is zeroed. */
int rknn_model_parse(const void *data, size_t size, rknn_model_view *out);

/* Point a parsed view at a byte-identical copy of its file (rknn_init's
 * own copy of the caller's model): O(1), no re-parse. */
void rknn_model_rebase(rknn_model_view *view, const void *copy);

/* Containers 4 and 2 (format.md §5.1, §5.2): build, from the per-task register lists, the
 * execution payload a container-6 file carries -- the command stream (block
 * targets, PC tails, links as stream offsets, address registers holding
 * offsets into their tensors), the task records and one relocation table
 * per tensor the stream addresses -- into buf (view->lowered_size bytes,
 * 8-byte aligned), for `soc`, and point the view at it. From then on the
 * view passes the same checks, relocation and steps as a container-6 one.
 * The buffer must stay valid (and unchanged) while the view is used.
 * RKNN_SUCC (also for container 6, which needs nothing), or
 * RKNN_ERR_PARAM_INVALID / RKNN_ERR_MODEL_INVALID (logged). */
int rknn_model_lower(rknn_model_view *view, const npu_soc_profile *soc, void *buf, uint32_t size);

/* Point a view at a payload rknn_model_lower() built for a view of the same
 * file and SoC (a context sharing another's model store). */
void rknn_model_attach_lowered(rknn_model_view *view, const void *buf);

/* The view's built payload: NULL for container 6, and always in a build
 * with container_v4=false, whose parse refuses containers 4 and 2 (callers'
 * container-4 code compiles away there). */
static inline const uint8_t *rknn_model_lowered(const rknn_model_view *view)
{
    return RKNN_CONTAINER_V4 ? view->lowered : NULL;
}

/* Accessors: RKNN_SUCC, RKNN_ERR_PARAM_INVALID (NULL / index >= count) or
 * RKNN_ERR_MODEL_INVALID (the blob does not decode; logged). */
int rknn_model_tensor(const rknn_model_view *view, uint32_t index, rknn_model_tensor_info *out);
int rknn_model_tensor_scale(const rknn_model_tensor_info *t, uint32_t i, float *out);
int rknn_model_tensor_zero_point(const rknn_model_tensor_info *t, uint32_t i, int32_t *out);
/* Index of the first tensor named name[0..len), or RKNN_ERR_PARAM_INVALID. */
#define rknn_model_find_tensor(view, name, len, index)                                             \
    rknn_model_find_tensor_from((view), (name), (len), 0, (index))
/* The same, searched from tensor `from` on (0 if past the last) round to the
 * one before it: the one found is the first from there. A relocation table
 * names its tensors mostly in their order, so the search from the previous
 * relocation's tensor ends soon (rknn_init's relocation passes were
 * O(relocations x tensors)). */
int rknn_model_find_tensor_from(const rknn_model_view *view, const char *name, uint32_t len,
                                uint32_t from, uint32_t *index);

int rknn_model_node(const rknn_model_view *view, uint32_t index, rknn_model_node_info *out);
int rknn_model_node_input(const rknn_model_node_info *node, uint32_t i, uint32_t *tensor);
int rknn_model_node_output(const rknn_model_node_info *node, uint32_t i, uint32_t *tensor);
int rknn_model_node_attr(const rknn_model_node_info *node, uint32_t i, rknn_model_attr *out);
int rknn_model_node_attr_find(const rknn_model_node_info *node, const char *name,
                              rknn_model_attr *out);
int rknn_model_attr_elem(const rknn_model_attr *attr, uint32_t i, rknn_model_attr_value *out);

/* Graph input (is_input) or output i as a tensor index. */
int rknn_model_io(const rknn_model_view *view, int is_input, uint32_t i, uint32_t *tensor);

int rknn_model_norm(const rknn_model_view *view, uint32_t i, rknn_model_norm_info *out);
int rknn_model_norm_mean(const rknn_model_norm_info *norm, uint32_t c, float *out);
int rknn_model_norm_std(const rknn_model_norm_info *norm, uint32_t c, float *out);

int rknn_model_reloc(const rknn_model_view *view, uint32_t i, rknn_model_reloc_info *out);
int rknn_model_reloc_entry(const rknn_model_reloc_info *reloc, uint32_t i, uint32_t *addend,
                           uint32_t *word_index);

int rknn_model_blob(const rknn_model_view *view, uint32_t i, const uint8_t **data, uint32_t *size);

int rknn_model_task(const rknn_model_view *view, uint32_t i, rknn_model_task_info *out);

/* The task group core `core` runs when the model runs on `n_cores` cores
 * (1 <= n_cores <= view->max_cores, core < n_cores). */
int rknn_model_task_group(const rknn_model_view *view, uint32_t n_cores, uint32_t core,
                          rknn_model_task_range *out);

/* 1 if task `from`'s chain link points at task `to` (the PC runs them as one
 * chain), else 0. */
int rknn_model_task_links_to(const rknn_model_view *view, uint32_t from, uint32_t to);

/* One submission to the NPU (format.md §4.2): per core of the configuration
 * a run of records, all started together; count 0 leaves the core idle. */
typedef struct {
    rknn_model_task_range core[RKNPU_MAX_CORES];
    uint8_t ping_pong; /* 0 when the step uploads a DPU LUT (PC_TASK_CON.TASK_PP_EN) */
} rknn_model_step;

/* The next step of nodes [*node, end) on n_cores cores, *node moved past it;
 * all counts 0 when no node left has records. A step is one node on every
 * core that has records for it (a node split across cores reads what all
 * cores wrote before), or consecutive nodes on one single core whose chain
 * runs on from one into the next. ping_pong is 0 for a step that uploads a
 * DPU LUT; in container 6 such a node is a step of its own (Rockchip's
 * runtime submits so, format.md §4.2). */
int rknn_model_next_step(const rknn_model_view *view, uint32_t n_cores, uint32_t *node,
                         uint32_t end, rknn_model_step *out);

/* An OutputOperator the NPU executes (RK3566 v6, a model of one output)
 * lays the output out as NCHW in a scratch tensor (its second input): its
 * leading records as int8, the rest as float32. *tasks: the single-core
 * group's records for `type` (RKNN_TENSOR_INT8 or _FLOAT32), count 0 when
 * no such operator serves it or the scratch is not an internal tensor of at
 * least `bytes` (the CPU converts then). Returns its arena offset. */
uint32_t rknn_model_output_form(const rknn_model_view *view, rknn_tensor_type type, uint32_t bytes,
                                rknn_model_task_range *tasks);

/* ---- checks, memory plan, relocation (model_check.c, model_plan.c,
 *      model_reloc.c) ------------------------------------------------------- */

/* Sizes one context needs (rknpu_model_mem is the public view of it). */ typedef struct {
    uint32_t weight_bytes;      /* constant blobs, each 64-byte aligned */
    uint32_t regcmd_bytes;      /* register command stream */
    uint32_t arena_bytes;       /* activations incl. inputs and outputs: the file's */
    uint32_t scratch_bytes;     /* loader work area, freed before rknn_init returns */
    uint32_t io_plan_bytes;     /* per-input conversion plans (the runtime's: rknn_io.c) */
    uint32_t step_memo_bytes;   /* a step per node, remembered (the runtime's: rknn_steps.c) */
    uint32_t input_home_bytes;  /* own buffers of inputs whose arena bytes other tensors reuse */
    uint32_t output_home_bytes; /* outputs' own buffers, a carve-out block each: the tail
                                 * output's (the runtime's count once it holds them) */
    uint32_t image_bytes;       /* the runtime's copy of the file up to its JSON (default mode) */
    uint32_t lowered_bytes;     /* containers 4, 2: the payload rknn_model_lower() builds */
    uint8_t blobs_aligned;      /* every blob the NPU reads is 64-byte aligned in the file */
    uint16_t tail_output;       /* 1 + the index of the output past every other activation
                                 * tensor's bytes (rknn_model_home_size), or 0 */
} rknn_mem_plan;

/* The arena a context allocates for itself: up to its tail output, which
 * ends the file's arena in whole 64-byte granules (rknn_model_home_size). */
static inline uint32_t rknn_plan_own_arena(const rknn_mem_plan *plan)
{
    return plan->arena_bytes - plan->output_home_bytes;
}

/* The model must be able to run on this SoC: target platform, NPU family,
 * core configurations, compiler version. RKNN_ERR_TARGET_PLATFORM_UNMATCH
 * with a log line saying what the model wants. */
int rknn_model_check_compat(const rknn_model_view *m, const npu_soc_profile *soc);

/* Every task, chain link and register word is well formed, every relocation
 * targets a known address register and stays inside its tensor, and every
 * address register in the stream is relocated. Computes the memory plan (model_plan.c; io_plan_bytes is the runtime's). */
int rknn_model_plan(const rknn_model_view *m, const npu_soc_profile *soc, rknn_mem_plan *plan);

/* Copy the constant blobs into weights (plan.weight_bytes long). */
int rknn_model_copy_weights(const rknn_model_view *m, uint8_t *weights);

/* RKNN_SUCC if the weight blobs of a and b have the same count and sizes
 * (one may use the other's constants), else RKNN_ERR_PARAM_INVALID. */
int rknn_model_same_weight_blobs(const rknn_model_view *a, const rknn_model_view *b);

/* Where each blob starts in the packed constants (rknn_model_copy_weights). */
int rknn_model_blob_offsets(const rknn_model_view *m, uint32_t *offsets);

/* Bytes of an input's or output's own buffer with an arena of the
 * context's own, or 0: the arena holds it (64-byte granules for an input;
 * an output's are). Rockchip's runtime keeps inputs
 * and outputs in buffers of their own. An input needs one when other
 * activation tensors reuse some of its arena bytes (the model's planner
 * frees an input after its last reader, so it would not survive a run; an
 * input set once must serve every run). An output past every other
 * activation tensor's bytes (a "tail" output), in whole 64-byte granules,
 * gets one at no cost: the arena ends before it (rknn_plan_own_arena). */
int rknn_model_home_size(const rknn_model_view *m, int is_input, uint32_t index, uint32_t *size);

/* The memory one relocated copy of the stream points at. */
typedef struct {
    uint8_t *stream;              /* the copy: stream_bytes long, overwritten */
    uint32_t stream_dma;          /* its DMA address (chain links are rebased to it) */
    uint32_t stream_bytes;        /* plan.regcmd_bytes */
    uint32_t constants_dma;       /* DMA address blob_offsets are relative to */
    const uint32_t *blob_offsets; /* per blob: its offset in the constants */
    uint32_t arena_dma;           /* the activation arena */
    uint32_t *bitmap;             /* scratch: one bit per stream word */
} rknn_model_reloc_target;

/* Copy the model's stream into to->stream (or, to->stream == m->regcmd,
 * relocate it where it lies, and m->regcmd_dma becomes to->stream_dma) and
 * point every relocated word at the target's constants and arena, every
 * chain link at the copy; words no task covers become NOPs.
 * RKNN_ERR_MODEL_INVALID (logged) for a relocation that is not an in-range
 * address register or an address left unrelocated, and for a stream
 * relocated where it lies that relocating changed the file's tables of. */
int rknn_model_relocate(rknn_model_view *m, const rknn_model_reloc_target *to);

/* 1 if `stream` holds m's program as a context leaves it (m's stream as in
 * the file, `stream` possibly relocated where it lies): word for word the
 * same but for the words a context rewrites (an address, a chain link or an
 * input converter word keeps its register; a word no task covers may be a
 * NOP), else 0. */
int rknn_model_same_program(const rknn_model_view *m, const uint8_t *stream);

/* Point every relocation of one tensor at a new DMA address in a relocated
 * stream (zero-copy I/O buffers). */
int rknn_model_repoint(const rknn_model_view *m, uint8_t *stream, uint32_t tensor_index,
                       uint32_t dma);

#ifdef __cplusplus
}
#endif

#endif /* RKNN_MODEL_H */
