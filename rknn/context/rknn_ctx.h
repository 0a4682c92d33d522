/*
 * rknn_ctx.h - the context behind an rknn_context handle, and the loader
 * that turns a parsed .rknn file into NPU-ready memory.
 *
 * The model buffer (the vendor rule: it may be freed once rknn_init returns):
 *   default  rknn_init copies the file up to its JSON trailer into the
 *            carve-out (the model image) and reads names, shapes,
 *            quantisation, task records and relocations from that copy; the
 *            caller's buffer is not touched after rknn_init returns
 *   RKNN_FLAG_MODEL_BUFFER_ZERO_COPY
 *            the caller's buffer is the image: it must stay valid and
 *            unchanged until the last context using it is destroyed
 * Memory of one context, all in the carve-out:
 *   weights  the constant blobs: read by the NPU in place inside the image
 *            when the image lies in the carve-out and every blob is 64-byte
 *            aligned there; otherwise a packed copy (plan.weight_bytes);
 *            shared, with the image, by rknn_dup_context() and
 *            RKNN_FLAG_SHARE_WEIGHT_MEM contexts
 *   regcmd   the model's register command stream, relocated for this
 *            context's buffers: where it lies (in the image or in container
 *            4's built payload) for the first context of a store of ours that
 *            relocates once, at rknn_init (format.md §4.4); a copy of its own
 *            for every other context (rknn_dup_context, SHARE_WEIGHT_MEM,
 *            memory from outside, the caller's buffer as the image)
 *   arena    activations, with inputs at their model offsets (an input whose
 *            bytes other tensors reuse: in a buffer of its own)
 *   outputs  each in a buffer of its own, as Rockchip's runtime keeps them,
 *            when the arena comes from outside (two contexts may share it);
 *            with an arena of ours, an output past every other tensor (the
 *            arena ends before it), the others at their model offsets
 * The task records are read from the image: the NPU never reads them (the
 * driver programs each chain from them), so they need no DMA copy.
 */
#ifndef RKNN_CTX_H
#define RKNN_CTX_H

#include <stdint.h>

#include "mem.h"
#include "npu_driver.h"
#include "npu_soc.h"
#include "rknn_api.h"
#include "rknn_model.h"

#define RKNN_CTX_MAGIC 0x524b4e43u /* "RKNC" */

struct rknn_custom_node;

/* A zero-copy buffer bound to an input or output with rknn_set_io_mem. */
typedef struct {
    struct _rknn_tensor_memory *mem;
    rknn_tensor_type type;
    rknn_tensor_format fmt;
    uint8_t pass_through;
    uint8_t native; /* NPU reads/writes it directly (relocated) */
    uint8_t form;   /* the OutputOperator writes its form here (rknn_mem.c) */
} rknn_io_binding;

/* Init flags rknpu-bm acts on or may safely ignore; everything else (the
 * fence flags: there are no fences without Linux) is refused with
 * RKNN_ERR_PARAM_INVALID and a log line naming the flag. */
#define RKNN_CTX_SUPPORTED_FLAGS                                                                   \
    (RKNN_FLAG_PRIOR_MEDIUM | RKNN_FLAG_PRIOR_LOW | RKNN_FLAG_ASYNC_MASK |                         \
     RKNN_FLAG_COLLECT_PERF_MASK | RKNN_FLAG_MEM_ALLOC_OUTSIDE | RKNN_FLAG_SHARE_WEIGHT_MEM |      \
     RKNN_FLAG_COLLECT_MODEL_INFO_ONLY | RKNN_FLAG_INTERNAL_ALLOC_OUTSIDE |                        \
     RKNN_FLAG_DISABLE_PROC_HIGH_PRIORITY | RKNN_FLAG_DISABLE_FLUSH_INPUT_MEM_CACHE |              \
     RKNN_FLAG_DISABLE_FLUSH_OUTPUT_MEM_CACHE | RKNN_FLAG_MODEL_BUFFER_ZERO_COPY |                 \
     RKNN_CTX_IGNORED_FLAGS)
/* Preferences with nothing to act on here: accepted and logged (INFO) so that
 * vendor code passing them runs: SRAM placement (internal tensors stay in
 * the carve-out; RKNN_QUERY_MEM_SIZE reports 0 bytes of SRAM) and GPU
 * fallback (there is no GPU; CPU operators are registered custom ops). */
#define RKNN_CTX_IGNORED_FLAGS                                                                     \
    (RKNN_FLAG_ENABLE_SRAM | RKNN_FLAG_SHARE_SRAM | RKNN_FLAG_EXECUTE_FALLBACK_PRIOR_DEVICE_GPU)

/* The model after rknn_init: its image and where the NPU reads its
 * constants. Shared (reference counted) by rknn_dup_context() and by
 * RKNN_FLAG_SHARE_WEIGHT_MEM contexts. */
typedef struct {
    const uint8_t *image; /* the file the views point into (see above) */
    uint32_t image_size;
    uint8_t *dma; /* constants as the NPU reads them: in the image, a packed
                             * carve-out copy, or rknn_set_weight_mem memory */
    uint32_t refs;
    uint8_t *lowered;    /* container 4: the payload built from the image (format.md §5.1) */
    uint8_t image_owned; /* image is our carve-out copy */
    uint8_t dma_owned;   /* dma is our packed carve-out copy */
    uint8_t in_place;    /* dma == image: a blob's offset is its file offset */
    /* 0, or the DMA address its first context relocated the stream at,
     * where it lies: what a view of the store says (rknn_model.h) */
    uint32_t regcmd_dma;
} rknn_model_store;

/* The physical cores of a run, in the order of the model's core groups. */
typedef struct {
    unsigned core[RKNPU_MAX_CORES];
    unsigned n;
} rknn_run_cores;

/* The step rknn_steps_next worked out from one node: steps depend only on
 * the model and the core count, so every later run's same step skips the
 * search through the task records. end 0: not worked out yet. */
typedef struct {
    uint32_t end, next; /* nodes [from, end) asked, the step ended before next */
    rknn_model_step step;
} rknn_step_memo;

typedef struct rknn_ctx {
    uint32_t magic;
    uint32_t flags;
    rknn_model_view model;
    const npu_soc_profile *soc;
    rknn_mem_plan plan;
    rknn_model_store *store;
    uint8_t *own_image;   /* a SHARE_WEIGHT_MEM context's copy of a model that differs
                             * from its master's (the store holds the master's) */
    uint8_t *own_lowered; /* container 4: the payload built for this context's view,
                             * until a store takes it (or when own_image is set) */
    uint8_t *regcmd;      /* relocated stream, RKNN_DMA_ALIGN aligned: a copy of ours,
                             * or (regcmd_in_place) the store's own */
    uint8_t *arena;       /* NULL until internal memory is bound */
    uint8_t arena_owned;
    uint8_t regcmd_in_place; /* regcmd is the store's stream, not a copy of ours */
    uint8_t relocated;       /* regcmd matches the bound buffers */
    uint8_t has_cpu_nodes;   /* the graph has CPU operators between NPU segments */
    const void *mapped_file; /* host board: rknn_init() with a path, zero-copy mode */
    size_t mapped_size;
    int64_t last_run_us; /* RKNN_QUERY_PERF_RUN: the whole last run, CPU operators included */
    int64_t last_npu_us; /* of which the NPU's part */
    uint8_t last_cores;  /* cores the last run used */
    uint32_t core_mask;  /* rknn_set_core_mask() value */
    uint32_t runs;       /* completed rknn_run() calls */
    uint32_t inputs_set; /* bit i: input i has data (inputs_set or io mem) */
    rknn_io_binding in_bind[RKNN_CTX_MAX_INPUTS];
    rknn_io_binding out_bind[RKNN_CTX_MAX_OUTPUTS];
    void *out_alloc[RKNN_CTX_MAX_OUTPUTS]; /* rknn_outputs_get buffers (carve-out) */
    /* [RKNN_CTX_MAX_OUTPUTS], in in_plan's block: where the NPU writes each output
     * unless bound, or NULL: the arena (rknn_io_buffer) */
    uint8_t **out_home;
    struct rknn_io_plan_s *in_plan; /* per input, from rknn_io_prepare (carve-out) */
    char perf_text[512];            /* RKNN_QUERY_PERF_DETAIL */
    struct rknn_custom_node *custom[RKNN_CTX_MAX_CUSTOM_NODES]; /* registered op nodes */
    uint32_t n_custom;
    npu_pending pending;              /* a run started with non_block / async, not yet waited for */
    int pending_error;                /* that run failed while another context finished it */
    rknn_run_cores run_cores;         /* the run in flight: its cores, */
    uint32_t run_node;                /* the first node its next step submits, */
    uint64_t run_hw_us;               /* the NPU time of its steps so far */
    struct rknn_matmul_state *matmul; /* a matmul context's state (carve-out), else NULL */
    uint8_t *async_prev;              /* RKNN_FLAG_ASYNC_MASK: previous frame's native outputs */
    uint8_t async_have_prev;
    rknn_step_memo *steps; /* [n_nodes], indexed by a step's first node (carve-out) */
    uint8_t steps_cores;   /* the core count the remembered steps are for */
    rknpu_job_owner owner; /* what the inference hooks are told: handle, user argument */
} rknn_ctx;

/* Handle <-> context, validating the handle (pool membership and magic). */
rknn_ctx *rknn_ctx_from_handle(rknn_context handle);
rknn_context rknn_ctx_to_handle(const rknn_ctx *ctx);
/* The same for an API call: NULL having logged "<api>: invalid context"
 * (without log strings, the line of this function: one log call for all). */
#if HAL_LOG_STRINGS
rknn_ctx *rknn_ctx_of(rknn_context handle, const char *api);
#else
rknn_ctx *rknn_ctx_checked(rknn_context handle);
#define rknn_ctx_of(handle, api) rknn_ctx_checked(handle)
#endif

/* Take a context from the pool (magic and flags set), and give it back. */
rknn_ctx *rknn_ctx_take(uint32_t flags);
void rknn_ctx_give_back(rknn_ctx *ctx);
/* Contexts out of the pool (the one being made included). */
unsigned rknn_ctx_count(void);
/* The async snapshot (RKNN_FLAG_ASYNC_MASK): output i's offset in it, and
 * the bytes of an output's slot (its size, 64-byte aligned). */
uint32_t rknn_ctx_async_offset(const rknn_ctx *ctx, uint32_t output);
uint32_t rknn_ctx_async_slot_bytes(const rknn_model_tensor_info *t);

/* ---- loader (rknn_loader.c) ---------------------------------------------- */

/* rknn_model_plan() and the runtime's own part of the plan (io_plan_bytes). */
int rknn_loader_validate(const rknn_model_view *m, const npu_soc_profile *soc, rknn_mem_plan *plan);

/* Copy the stream into ctx->regcmd and patch every address for the
 * context's bound weights, arena and chain. Needs a scratch block of
 * plan.scratch_bytes from the carve-out (allocated and freed inside). */
int rknn_loader_relocate(rknn_ctx *ctx);

/* Point every relocation of one tensor at a new DMA address (zero-copy
 * I/O buffers). The stream is cleaned to the point of coherency. */
int rknn_loader_rebind(rknn_ctx *ctx, uint32_t tensor_index, uint32_t dma);

/* Size of a model's memory before rknn_init (rknpu_model_mem_requirements). */
int rknn_loader_plan_file(const void *model, size_t size, rknn_mem_plan *plan,
                          rknn_model_view *view);

#endif
