/*
 * rknn_api.h - the RKNPU2 runtime API as implemented by rknpu-bm.
 *
 * Source compatible with Rockchip's RKNPU2 rknn_api.h (SDK v2.0.0b0 .. v2.3.x):
 * same names, enum and macro values and struct layouts, so application code
 * written for librknnrt compiles unchanged. Written from the API inventory in
 * docs/api.md, not from the vendor file.
 *
 * What differs is the platform underneath: rknpu-bm runs on bare metal with no
 * kernel driver, no file system (except on the host board), no dma-buf file
 * descriptors and no heap. The comment on each function says what it does
 * here. Call rknpu_platform_init() (rknpu_bm.h) before rknn_init().
 *
 * rknpu-bm additions (additive, never renumbering a vendor value): a
 * RKNPU_BM_*_ENUM_4_BYTES enumerator in every enum that is a struct member.
 * It keeps those enums 4 bytes wide under -fshort-enums, the arm-none-eabi
 * default, so struct layouts are the same with every compiler and flag.
 */
#ifndef RKNN_API_H
#define RKNN_API_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Context handle --------------------------------------------------- */

/* Opaque handle, 0 is never a valid context. 32-bit ARM uses a 32-bit handle
 * (as the vendor ABI does), every other target a 64-bit one. */
#ifdef __arm__
typedef uint32_t rknn_context;
#else
typedef uint64_t rknn_context;
#endif

/* ---- rknn_init() flags ------------------------------------------------- */

/* Priority hints; rknpu-bm has one submit queue and ignores them. */
#define RKNN_FLAG_PRIOR_HIGH   0x00000000
#define RKNN_FLAG_PRIOR_MEDIUM 0x00000001
#define RKNN_FLAG_PRIOR_LOW    0x00000002
/* rknn_run() returns once the job is submitted; rknn_outputs_get() returns
 * the PREVIOUS frame's outputs (the first call returns size 0, buf NULL),
 * so the application can post-process frame N-1 while frame N runs. Models
 * with custom CPU operators run each frame to completion in rknn_run(). */
#define RKNN_FLAG_ASYNC_MASK 0x00000004
/* Record per-layer timing for RKNN_QUERY_PERF_DETAIL (makes runs slower). */
#define RKNN_FLAG_COLLECT_PERF_MASK 0x00000008
/* The caller provides weight, internal and I/O memory (rknn_set_*_mem). */
#define RKNN_FLAG_MEM_ALLOC_OUTSIDE 0x00000010
/* Share the weights of rknn_init_extend.ctx instead of loading them again. */
#define RKNN_FLAG_SHARE_WEIGHT_MEM 0x00000020
/* Fence file descriptors (Linux sync files): not available on bare metal. */
#define RKNN_FLAG_FENCE_IN_OUTSIDE  0x00000040
#define RKNN_FLAG_FENCE_OUT_OUTSIDE 0x00000080
/* Parse the model only, so that RKNN_QUERY_MEM_SIZE can be asked. */
#define RKNN_FLAG_COLLECT_MODEL_INFO_ONLY 0x00000100
/* The caller provides internal (intermediate tensor) memory only. */
#define RKNN_FLAG_INTERNAL_ALLOC_OUTSIDE 0x00000200
/* GPU fallback for unsupported ops: there is no GPU path in rknpu-bm. */
#define RKNN_FLAG_EXECUTE_FALLBACK_PRIOR_DEVICE_GPU 0x00000400
/* Put internal tensors in on-chip SRAM where possible. */
#define RKNN_FLAG_ENABLE_SRAM 0x00000800
/* Share SRAM between contexts (not implemented by the vendor either). */
#define RKNN_FLAG_SHARE_SRAM 0x00001000
/* Linux process priority: meaningless on bare metal, ignored. */
#define RKNN_FLAG_DISABLE_PROC_HIGH_PRIORITY 0x00002000
/* Skip the cache maintenance of input / output buffers; the caller then
 * uses rknn_mem_sync() itself. */
#define RKNN_FLAG_DISABLE_FLUSH_INPUT_MEM_CACHE  0x00004000
#define RKNN_FLAG_DISABLE_FLUSH_OUTPUT_MEM_CACHE 0x00008000
/* (v2.3.x) Run from the caller's model buffer without copying it; the
 * buffer must then outlive the context. */
#define RKNN_FLAG_MODEL_BUFFER_ZERO_COPY 0x00010000
/* (v2.3.x) rknn_create_mem2() without a context. */
#define RKNN_MEM_FLAG_ALLOC_NO_CONTEXT 0x00020000

/* ---- Error codes ------------------------------------------------------- */

#define RKNN_SUCC                   0   /* success */
#define RKNN_ERR_FAIL               -1  /* generic failure, see the log */
#define RKNN_ERR_TIMEOUT            -2  /* the NPU did not finish in time */
#define RKNN_ERR_DEVICE_UNAVAILABLE -3  /* no platform / NPU not answering */
#define RKNN_ERR_MALLOC_FAIL        -4  /* carve-out or static pool full */
#define RKNN_ERR_PARAM_INVALID      -5  /* bad argument */
#define RKNN_ERR_MODEL_INVALID      -6  /* model file rejected */
#define RKNN_ERR_CTX_INVALID        -7  /* unknown or destroyed context */
#define RKNN_ERR_INPUT_INVALID      -8  /* bad rknn_input */
#define RKNN_ERR_OUTPUT_INVALID     -9  /* bad rknn_output */
#define RKNN_ERR_DEVICE_UNMATCH     -10 /* version mismatch */
/* Both spellings "INCOMPATILE" are the vendor header's. */
#define RKNN_ERR_INCOMPATILE_PRE_COMPILE_MODEL          -11
#define RKNN_ERR_INCOMPATILE_OPTIMIZATION_LEVEL_VERSION -12
#define RKNN_ERR_TARGET_PLATFORM_UNMATCH                -13 /* model built for another SoC */

/* ---- Size limits ------------------------------------------------------- */

#define RKNN_MAX_DIMS              16
#define RKNN_MAX_NUM_CHANNEL       15
#define RKNN_MAX_NAME_LEN          256
#define RKNN_MAX_DYNAMIC_SHAPE_NUM 512

/* ---- Enumerations ------------------------------------------------------ */

/* What rknn_query() reports; the struct to pass is named per command. */
typedef enum _rknn_query_cmd {
    RKNN_QUERY_IN_OUT_NUM = 0,                  /* rknn_input_output_num */
    RKNN_QUERY_INPUT_ATTR = 1,                  /* rknn_tensor_attr */
    RKNN_QUERY_OUTPUT_ATTR = 2,                 /* rknn_tensor_attr */
    RKNN_QUERY_PERF_DETAIL = 3,                 /* rknn_perf_detail */
    RKNN_QUERY_PERF_RUN = 4,                    /* rknn_perf_run */
    RKNN_QUERY_SDK_VERSION = 5,                 /* rknn_sdk_version */
    RKNN_QUERY_MEM_SIZE = 6,                    /* rknn_mem_size */
    RKNN_QUERY_CUSTOM_STRING = 7,               /* rknn_custom_string */
    RKNN_QUERY_NATIVE_INPUT_ATTR = 8,           /* rknn_tensor_attr, NPU layout */
    RKNN_QUERY_NATIVE_OUTPUT_ATTR = 9,          /* rknn_tensor_attr, NPU layout */
    RKNN_QUERY_NATIVE_NC1HWC2_INPUT_ATTR = 8,   /* alias */
    RKNN_QUERY_NATIVE_NC1HWC2_OUTPUT_ATTR = 9,  /* alias */
    RKNN_QUERY_NATIVE_NHWC_INPUT_ATTR = 10,     /* rknn_tensor_attr */
    RKNN_QUERY_NATIVE_NHWC_OUTPUT_ATTR = 11,    /* rknn_tensor_attr */
    RKNN_QUERY_DEVICE_MEM_INFO = 12,            /* no public struct: unsupported */
    RKNN_QUERY_INPUT_DYNAMIC_RANGE = 13,        /* rknn_input_range */
    RKNN_QUERY_CURRENT_INPUT_ATTR = 14,         /* dynamic-shape models only */
    RKNN_QUERY_CURRENT_OUTPUT_ATTR = 15,        /* dynamic-shape models only */
    RKNN_QUERY_CURRENT_NATIVE_INPUT_ATTR = 16,  /* dynamic-shape models only */
    RKNN_QUERY_CURRENT_NATIVE_OUTPUT_ATTR = 17, /* dynamic-shape models only */
    RKNN_QUERY_CMD_MAX
} rknn_query_cmd;

/* Element type of a tensor or buffer (v2.3.x numbering). */
typedef enum _rknn_tensor_type {
    RKNN_TENSOR_FLOAT32 = 0,
    RKNN_TENSOR_FLOAT16 = 1,
    RKNN_TENSOR_INT8 = 2,
    RKNN_TENSOR_UINT8 = 3,
    RKNN_TENSOR_INT16 = 4,
    RKNN_TENSOR_UINT16 = 5,
    RKNN_TENSOR_INT32 = 6,
    RKNN_TENSOR_UINT32 = 7,
    RKNN_TENSOR_INT64 = 8,
    RKNN_TENSOR_BOOL = 9,
    RKNN_TENSOR_INT4 = 10,
    RKNN_TENSOR_BFLOAT16 = 11,
    RKNN_TENSOR_TYPE_MAX = 12,
    RKNPU_BM_TENSOR_TYPE_ENUM_4_BYTES = 0x7fffffff /* see top of file */
} rknn_tensor_type;

/* Short printable name of a tensor type ("FP32", "INT8", ...). */
static inline const char *get_type_string(rknn_tensor_type type)
{
    switch (type) {
    case RKNN_TENSOR_FLOAT32: return "FP32";
    case RKNN_TENSOR_FLOAT16: return "FP16";
    case RKNN_TENSOR_INT8: return "INT8";
    case RKNN_TENSOR_UINT8: return "UINT8";
    case RKNN_TENSOR_INT16: return "INT16";
    case RKNN_TENSOR_UINT16: return "UINT16";
    case RKNN_TENSOR_INT32: return "INT32";
    case RKNN_TENSOR_UINT32: return "UINT32";
    case RKNN_TENSOR_INT64: return "INT64";
    case RKNN_TENSOR_BOOL: return "BOOL";
    case RKNN_TENSOR_INT4: return "INT4";
    case RKNN_TENSOR_BFLOAT16: return "BF16";
    case RKNN_TENSOR_TYPE_MAX:
    case RKNPU_BM_TENSOR_TYPE_ENUM_4_BYTES: break;
    }
    return "UNKNOW"; /* vendor spelling; also for out-of-range values */
}

/* How a tensor is quantised. */
typedef enum _rknn_tensor_qnt_type {
    RKNN_TENSOR_QNT_NONE = 0,              /* float, or plain integers */
    RKNN_TENSOR_QNT_DFP = 1,               /* dynamic fixed point (fl) */
    RKNN_TENSOR_QNT_AFFINE_ASYMMETRIC = 2, /* real = (q - zp) * scale */
    RKNN_TENSOR_QNT_MAX = 3,
    RKNPU_BM_TENSOR_QNT_TYPE_ENUM_4_BYTES = 0x7fffffff /* see top of file */
} rknn_tensor_qnt_type;

/* Short printable name of a quantisation type ("NONE", "DFP", "AFFINE"). */
static inline const char *get_qnt_type_string(rknn_tensor_qnt_type type)
{
    switch (type) {
    case RKNN_TENSOR_QNT_NONE: return "NONE";
    case RKNN_TENSOR_QNT_DFP: return "DFP";
    case RKNN_TENSOR_QNT_AFFINE_ASYMMETRIC: return "AFFINE";
    case RKNN_TENSOR_QNT_MAX:
    case RKNPU_BM_TENSOR_QNT_TYPE_ENUM_4_BYTES: break;
    }
    return "UNKNOW";
}

/* Memory layout of a tensor. NC1HWC2 is the NPU's native layout: channels
 * split into C1 groups of C2 (dims = N, C1, H, W, C2). */
typedef enum _rknn_tensor_format {
    RKNN_TENSOR_NCHW = 0,
    RKNN_TENSOR_NHWC = 1,
    RKNN_TENSOR_NC1HWC2 = 2,
    RKNN_TENSOR_UNDEFINED = 3, /* not 4-D: the model's own shape */
    RKNN_TENSOR_FORMAT_MAX = 4,
    RKNPU_BM_TENSOR_FORMAT_ENUM_4_BYTES = 0x7fffffff /* see top of file */
} rknn_tensor_format;

/* Short printable name of a layout ("NCHW", "NHWC", "NC1HWC2", ...). */
static inline const char *get_format_string(rknn_tensor_format fmt)
{
    switch (fmt) {
    case RKNN_TENSOR_NCHW: return "NCHW";
    case RKNN_TENSOR_NHWC: return "NHWC";
    case RKNN_TENSOR_NC1HWC2: return "NC1HWC2";
    case RKNN_TENSOR_UNDEFINED: return "UNDEFINED";
    case RKNN_TENSOR_FORMAT_MAX:
    case RKNPU_BM_TENSOR_FORMAT_ENUM_4_BYTES: break;
    }
    return "UNKNOW";
}

/* NPU cores a context may use (bit n = core n). Multi-core masks exist on
 * RK3588 only; single-core SoCs accept AUTO, CORE_0 and ALL. */
typedef enum _rknn_core_mask {
    RKNN_NPU_CORE_AUTO = 0, /* one idle core, chosen per run */
    RKNN_NPU_CORE_0 = 1,
    RKNN_NPU_CORE_1 = 2,
    RKNN_NPU_CORE_2 = 4,
    RKNN_NPU_CORE_0_1 = 3,
    RKNN_NPU_CORE_0_1_2 = 7,
    RKNN_NPU_CORE_ALL = 0xffff, /* every core the SoC has */
    RKNN_NPU_CORE_UNDEFINED     /* 0x10000 */
} rknn_core_mask;

/* rknn_tensor_mem.flags: who created the handle. */
typedef enum _rknn_tensor_mem_flags {
    RKNN_TENSOR_MEMORY_FLAGS_ALLOC_INSIDE = 1, /* rknn_create_mem / _mem2 */
    RKNN_TENSOR_MEMORY_FLAGS_FROM_FD = 2,      /* rknn_create_mem_from_fd */
    RKNN_TENSOR_MEMORY_FLAGS_FROM_PHYS = 3,    /* rknn_create_mem_from_phys */
    RKNN_TENSOR_MEMORY_FLAGS_UNKNOWN = 4
} rknn_tensor_mem_flags;

/* alloc_flags of rknn_create_mem2(). */
typedef enum _rknn_mem_alloc_flags {
    RKNN_FLAG_MEMORY_FLAGS_DEFAULT = 0, /* = CACHEABLE */
    RKNN_FLAG_MEMORY_CACHEABLE = 1,
    RKNN_FLAG_MEMORY_NON_CACHEABLE = 2,
    RKNN_FLAG_MEMORY_TRY_ALLOC_SRAM = 4 /* (v2.3.x) SRAM first, then DRAM */
} rknn_mem_alloc_flags;

/* Direction of rknn_mem_sync(). */
typedef enum _rknn_mem_sync_mode {
    RKNN_MEMORY_SYNC_TO_DEVICE = 0x1,    /* CPU wrote, NPU reads next */
    RKNN_MEMORY_SYNC_FROM_DEVICE = 0x2,  /* NPU wrote, CPU reads next */
    RKNN_MEMORY_SYNC_BIDIRECTIONAL = 0x3 /* both (when unsure) */
} rknn_mem_sync_mode;

/* ---- Structures (layouts are ABI: do not reorder) ---------------------- */

/* RKNN_QUERY_IN_OUT_NUM */
typedef struct _rknn_input_output_num {
    uint32_t n_input;
    uint32_t n_output;
} rknn_input_output_num;

/* RKNN_QUERY_*_ATTR, rknn_set_io_mem(), rknn_set_input_shapes() */
typedef struct _rknn_tensor_attr {
    uint32_t index;               /* in: tensor index, set before rknn_query */
    uint32_t n_dims;              /* valid entries of dims */
    uint32_t dims[RKNN_MAX_DIMS]; /* in fmt order, dims[0] = batch */
    char name[RKNN_MAX_NAME_LEN];
    uint32_t n_elems; /* element count */
    uint32_t size;    /* bytes, without stride padding */
    rknn_tensor_format fmt;
    rknn_tensor_type type;
    rknn_tensor_qnt_type qnt_type;
    int8_t fl;                 /* fractional length (DFP) */
    int32_t zp;                /* zero point (affine) */
    float scale;               /* scale (affine) */
    uint32_t w_stride;         /* read-only: row pitch in pixels, 0 = width */
    uint32_t size_with_stride; /* bytes including stride padding */
    uint8_t pass_through;      /* 1: buffer already in model type/layout */
    uint32_t h_stride;         /* write-only: rows per plane, 0 = height */
} rknn_tensor_attr;

/* RKNN_QUERY_INPUT_DYNAMIC_RANGE: the shapes a dynamic input accepts. */
typedef struct _rknn_input_range {
    uint32_t index;        /* in: input index */
    uint32_t shape_number; /* valid rows of dyn_range */
    rknn_tensor_format fmt;
    char name[RKNN_MAX_NAME_LEN];
    uint32_t dyn_range[RKNN_MAX_DYNAMIC_SHAPE_NUM][RKNN_MAX_DIMS];
    uint32_t n_dims;
} rknn_input_range;

/* RKNN_QUERY_PERF_DETAIL: a text table owned by the context. */
typedef struct _rknn_perf_detail {
    char *perf_data; /* do not free; valid until the next run */
    uint64_t data_len;
} rknn_perf_detail;

/* RKNN_QUERY_PERF_RUN */
typedef struct _rknn_perf_run {
    int64_t run_duration; /* last run, microseconds */
} rknn_perf_run;

/* RKNN_QUERY_SDK_VERSION */
typedef struct _rknn_sdk_version {
    char api_version[256];
    char drv_version[256];
} rknn_sdk_version;

/* RKNN_QUERY_MEM_SIZE */
typedef struct _rknn_mem_size {
    uint32_t total_weight_size;        /* bytes of weights */
    uint32_t total_internal_size;      /* intermediate tensors, not I/O */
    uint64_t total_dma_allocated_size; /* all NPU memory of the context */
    uint32_t total_sram_size;          /* SRAM reserved for the NPU */
    uint32_t free_sram_size;           /* SRAM still free */
    uint32_t reserved[10];
} rknn_mem_size;

/* RKNN_QUERY_CUSTOM_STRING */
typedef struct _rknn_custom_string {
    char string[1024];
} rknn_custom_string;

/* A buffer the NPU can reach. In rknpu-bm fd is always -1. */
typedef struct _rknn_tensor_memory {
    void *virt_addr;    /* CPU address of the buffer */
    uint64_t phys_addr; /* NPU (DMA) address of the buffer */
    int32_t fd;         /* dma-buf fd; -1 on bare metal */
    int32_t offset;     /* data starts at virt_addr + offset */
    uint32_t size;      /* bytes */
    uint32_t flags;     /* rknn_tensor_mem_flags */
    void *priv_data;    /* runtime-private */
} rknn_tensor_mem;

/* One input for rknn_inputs_set(). */
typedef struct _rknn_input {
    uint32_t index;
    void *buf;
    uint32_t size;          /* bytes in buf */
    uint8_t pass_through;   /* 1: copy as is, no conversion */
    rknn_tensor_type type;  /* type of buf (pass_through = 0) */
    rknn_tensor_format fmt; /* layout of buf (pass_through = 0) */
} rknn_input;

/* One output for rknn_outputs_get(). */
typedef struct _rknn_output {
    uint8_t want_float;  /* 1: dequantise to float32 */
    uint8_t is_prealloc; /* 1: buf/size are the caller's */
    uint32_t index;
    void *buf; /* runtime buffer if !is_prealloc, valid
                                       until rknn_outputs_release() */
    uint32_t size;
} rknn_output;

/* Optional argument of rknn_init() (v2.3.x field set). */
typedef struct _rknn_init_extend {
    rknn_context ctx;          /* weight owner for SHARE_WEIGHT_MEM */
    int32_t real_model_offset; /* model position inside the file given */
    uint32_t real_model_size;  /* model size inside the file given */
    int32_t model_buffer_fd;   /* dma-buf of the model: unsupported */
    uint32_t model_buffer_flags;
    uint8_t reserved[112];
} rknn_init_extend;

/* Optional argument of rknn_run() / rknn_wait(). */
typedef struct _rknn_run_extend {
    uint64_t frame_id;  /* out: sequence number of this run */
    int32_t non_block;  /* 1: return after submit, see rknn_wait */
    int32_t timeout_ms; /* 0: the platform's job timeout */
    int32_t fence_fd;   /* no fences on bare metal: ignored */
} rknn_run_extend;

/* Optional argument of rknn_outputs_get(). */
typedef struct _rknn_output_extend {
    uint64_t frame_id; /* out: frame_id of the run read */
} rknn_output_extend;

/* ---- Context lifecycle ------------------------------------------------- */

/* Load a .rknn model (container v6) from memory and create a context. size == 0
 * means model is a file path, which only the host board can open; firmware
 * gets RKNN_ERR_PARAM_INVALID. The blob may be freed after return unless
 * RKNN_FLAG_MODEL_BUFFER_ZERO_COPY is set. */
int rknn_init(rknn_context *context, void *model, uint32_t size, uint32_t flag,
              rknn_init_extend *extend);

/* A second context on the same model: shares the weights, gets its own
 * internal and I/O memory (for a second core or thread). */
int rknn_dup_context(rknn_context *context_in, rknn_context *context_out);

/* Release everything the context holds (carve-out memory, pool slots) and run
 * the custom ops' destroy callbacks. */
int rknn_destroy(rknn_context context);

/* Fill info (size bytes, usually sizeof the struct named in rknn_query_cmd).
 * RKNN_QUERY_DEVICE_MEM_INFO returns RKNN_ERR_PARAM_INVALID. */
int rknn_query(rknn_context context, rknn_query_cmd cmd, void *info, uint32_t size);

/* ---- Inference --------------------------------------------------------- */

/* Convert and copy inputs into the NPU buffers (type/layout conversion and
 * quantisation on the CPU unless pass_through), then clean the cache. */
int rknn_inputs_set(rknn_context context, uint32_t n_inputs, rknn_input inputs[]);

/* Number of NPU cores a multi-batch model spreads its batches over
 * (1 .. cores of the SoC); batches are submitted in turn, no threads. */
int rknn_set_batch_core_num(rknn_context context, int core_num);

/* Choose the NPU cores for later runs. Multi-core masks on RK3588 only;
 * anything the SoC lacks returns RKNN_ERR_PARAM_INVALID. */
int rknn_set_core_mask(rknn_context context, rknn_core_mask core_mask);

/* Run the model once. Blocks, polling the NPU, until done or timed out
 * (RKNN_ERR_TIMEOUT, after which the core is reset) unless extend->non_block
 * or RKNN_FLAG_ASYNC_MASK asks to return right after submit. */
int rknn_run(rknn_context context, rknn_run_extend *extend);

/* Complete a run started with rknn_run_extend.non_block = 1 or under
 * RKNN_FLAG_ASYNC_MASK: poll until it finishes or times out. */
int rknn_wait(rknn_context context, rknn_run_extend *extend);

/* Invalidate the cache over the output buffers, then dequantise / convert
 * into outputs[i].buf (caller's if is_prealloc, else from the carve-out;
 * give it back with rknn_outputs_release). Waits first if a non-blocking run
 * is still in flight. */
int rknn_outputs_get(rknn_context context, uint32_t n_outputs, rknn_output outputs[],
                     rknn_output_extend *extend);

/* Give back the pool buffers rknn_outputs_get() handed out. Call it for
 * every rknn_outputs_get(), even with is_prealloc = 1. */
int rknn_outputs_release(rknn_context context, uint32_t n_ouputs, rknn_output outputs[]);

/* ---- Zero-copy memory -------------------------------------------------- */

/* Wrap caller memory the NPU can reach: phys_addr is the NPU's address (must
 * lie below 4 GiB), virt_addr the CPU's. The memory stays the caller's. */
rknn_tensor_mem *rknn_create_mem_from_phys(rknn_context ctx, uint64_t phys_addr, void *virt_addr,
                                           uint32_t size);

/* dma-buf file descriptors do not exist on bare metal: returns NULL. */
rknn_tensor_mem *rknn_create_mem_from_fd(rknn_context ctx, int32_t fd, void *virt_addr,
                                         uint32_t size, int32_t offset);

/* Rockchip MPI media buffers do not exist on bare metal: returns NULL. */
rknn_tensor_mem *rknn_create_mem_from_mb_blk(rknn_context ctx, void *mb_blk, int32_t offset);

/* Allocate size bytes from the DMA carve-out (cacheable). NULL when the
 * carve-out or the handle pool is exhausted. */
rknn_tensor_mem *rknn_create_mem(rknn_context ctx, uint32_t size);

/* As rknn_create_mem() with rknn_mem_alloc_flags; RKNN_MEM_FLAG_ALLOC_NO_CONTEXT
 * allows ctx == 0. Sizes above 4 GiB - 1 return NULL. */
rknn_tensor_mem *rknn_create_mem2(rknn_context ctx, uint64_t size, uint64_t alloc_flags);

/* Release a handle; carve-out memory from rknn_create_mem*() is freed, wrapped
 * caller memory is not. */
int rknn_destroy_mem(rknn_context ctx, rknn_tensor_mem *mem);

/* With RKNN_FLAG_MEM_ALLOC_OUTSIDE: place the weights in mem (at least
 * RKNN_QUERY_MEM_SIZE.total_weight_size bytes); call before rknn_run(). */
int rknn_set_weight_mem(rknn_context ctx, rknn_tensor_mem *mem);

/* With RKNN_FLAG_MEM_ALLOC_OUTSIDE / _INTERNAL_ALLOC_OUTSIDE: intermediate
 * tensors go to mem (total_internal_size bytes); contexts that never run at
 * the same time may share one. */
int rknn_set_internal_mem(rknn_context ctx, rknn_tensor_mem *mem);

/* Bind mem as the buffer of the input or output attr->index, described by
 * attr (type, fmt, pass_through, strides); the NPU reads/writes it directly. */
int rknn_set_io_mem(rknn_context ctx, rknn_tensor_mem *mem, rknn_tensor_attr *attr);

/* Deprecated by the vendor: same as rknn_set_input_shapes(ctx, 1, attr) and
 * only for models with a single input. */
int rknn_set_input_shape(rknn_context ctx, rknn_tensor_attr *attr);

/* Select the current shape of a dynamic-shape model: one attr per input,
 * matching one of the RKNN_QUERY_INPUT_DYNAMIC_RANGE combinations. */
int rknn_set_input_shapes(rknn_context ctx, uint32_t n_inputs, rknn_tensor_attr attr[]);

/* Cache maintenance of mem through the platform hooks: clean (TO_DEVICE),
 * invalidate (FROM_DEVICE) or both. context may be 0. */
int rknn_mem_sync(rknn_context context, rknn_tensor_mem *mem, rknn_mem_sync_mode mode);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* RKNN_API_H */
