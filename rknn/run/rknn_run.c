/*
 * rknn_run.c - rknn_set_core_mask, rknn_run, rknn_wait: choose the task
 * groups for the core mask and hand them to the driver.
 *
 * A model built for RK3588 carries one task group per core configuration
 * (1 core; 2 cores; 3 cores). A mask selects the configuration and the
 * physical cores; the run goes to the NPU in steps (rknn_steps.h): the
 * cores of one step run at once, and a step starts when the one before it
 * has finished. A non-blocking run starts its first step; the calls that
 * settle it (rknn_wait, rknn_outputs_get, ...) run the rest.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "hal.h"
#include "npu_driver.h"
#include "rknn_ctx.h"
#include "rknn_custom.h"
#include "rknn_io.h"
#include "rknn_run.h"
#include "rknn_steps.h"
#include "rknpu_platform_internal.h"

/* The physical cores a mask means for this context; 0 on success. */
static int cores_for_mask(const rknn_ctx *ctx, uint32_t mask, unsigned *cores, unsigned *n)
{
    unsigned soc_cores = ctx->soc->core_count, model_cores = ctx->model.max_cores, k = 0;

    *n = 0;
    /* AUTO: runs are synchronous, every core is idle: core 0. ALL: as many
     * as both the SoC and the model have (at most 3; a loaded model has at
     * least one). The masks of cores 0+2 and 1+2 (5, 6) are not core masks. */
    if (mask == RKNN_NPU_CORE_AUTO)
        mask = RKNN_NPU_CORE_0;
    else if (mask == RKNN_NPU_CORE_ALL)
        mask = (1u << (soc_cores < model_cores ? soc_cores : model_cores)) - 1u;
    else if (mask > RKNN_NPU_CORE_0_1_2 || mask == 5 || mask == 6)
        return -1;
    for (unsigned c = 0; c < 3; c++)
        if (mask & (1u << c))
            cores[k++] = c;
    *n = k;
    return cores[k - 1] >= soc_cores || k > model_cores ? -1 : 0;
}

int rknn_set_core_mask(rknn_context context, rknn_core_mask core_mask)
{
    rknn_ctx *ctx = rknn_ctx_of(context, "rknn_set_core_mask");
    unsigned cores[3], n;

    if (!ctx)
        return RKNN_ERR_CTX_INVALID;
    if (ctx->soc->core_count == 1) {
        /* as Rockchip's runtime 1.6.0 answers on RK3566 (compat.md) */
        HAL_LOG_ERR("rknn_set_core_mask: %s has one NPU core; core masks are for multi-core SoCs",
                    ctx->soc->name);
        return RKNN_ERR_TARGET_PLATFORM_UNMATCH;
    }
    if (cores_for_mask(ctx, (uint32_t)core_mask, cores, &n) != 0) {
        HAL_LOG_ERR("rknn_set_core_mask: mask 0x%lx cannot run on %s (%lu core(s)) with a model "
                    "built for %lu core configuration(s)",
                    (unsigned long)core_mask, ctx->soc->name, (unsigned long)ctx->soc->core_count,
                    (unsigned long)ctx->model.max_cores);
        return RKNN_ERR_PARAM_INVALID;
    }
    ctx->core_mask = (uint32_t)core_mask;
    return RKNN_SUCC;
}

/* The first line of the RKNN_QUERY_PERF_DETAIL text of the last run (its
 * total, NPU part and cores) into buf; the length written. */
static int rknn_perf_head(const rknn_ctx *ctx, char *buf, size_t cap)
{
    uint64_t total = (uint64_t)ctx->last_run_us, npu = (uint64_t)ctx->last_npu_us;

    if (total > npu) /* CPU operators ran between NPU segments */
        return snprintf(buf, cap,
                        "run %lu: %llu us total: %llu us on the NPU (%u core(s)), %llu us "
                        "in CPU operators\n",
                        (unsigned long)ctx->runs, (unsigned long long)total,
                        (unsigned long long)npu, (unsigned)ctx->last_cores,
                        (unsigned long long)(total - npu));
    return snprintf(buf, cap, "run %lu: %llu us on the NPU (%u core(s))\n",
                    (unsigned long)ctx->runs, (unsigned long long)npu, (unsigned)ctx->last_cores);
}

/* With RKNN_FLAG_COLLECT_PERF_MASK the PERF_DETAIL text is written here,
 * with each core's whole task group (the NPU reports no time per task: one
 * interrupt per chain, so no per-layer times); without the flag rknn_query
 * writes the first line only, when asked (nothing spent in the run path).
 * The jobs themselves are built in one place, rknn_steps_next. */
static int record_perf(rknn_ctx *ctx, const rknn_run_cores *rc)
{
    char *t = ctx->perf_text;
    size_t cap = sizeof ctx->perf_text;
    int len = rknn_perf_head(ctx, t, cap);

    for (unsigned i = 0; i < rc->n && len > 0 && (size_t)len < cap; i++) {
        rknn_model_task_range g;
        int ret = rknn_model_task_group(&ctx->model, rc->n, i, &g);
        if (ret != RKNN_SUCC) /* unreachable: rc holds a core count the model has groups for */
            return ret;
        len += snprintf(t + len, cap - (size_t)len,
                        "  core %u: task group of %lu task(s) starting at task %lu\n", rc->core[i],
                        (unsigned long)g.count, (unsigned long)g.first);
    }
    return RKNN_SUCC;
}

/* Book-keeping once a run's work is complete: hw_us is the NPU's time,
 * total_us the whole run's (more when CPU operators ran). */
static int run_completed(rknn_ctx *ctx, const rknn_run_cores *rc, uint64_t hw_us, uint64_t total_us)
{
    int ret;

    ctx->runs++;
    ctx->last_npu_us = (int64_t)hw_us;
    ctx->last_run_us = (int64_t)(total_us > hw_us ? total_us : hw_us);
    ctx->last_cores = (uint8_t)rc->n;
    if ((ctx->flags & RKNN_FLAG_COLLECT_PERF_MASK) && (ret = record_perf(ctx, rc)) != RKNN_SUCC)
        return ret;
    return rknn_io_after_run(ctx);
}

/* Start the run's next step; *started 0 when none is left. */
static int start_next_step(rknn_ctx *ctx, int *started)
{
    npu_core_job jobs[RKNPU_MAX_CORES];
    unsigned n;
    int ret = rknn_steps_next(ctx, &ctx->run_cores, &ctx->run_node, ctx->model.n_nodes, jobs, &n);

    *started = 0;
    if (ret != RKNN_SUCC || n == 0)
        return ret;
    *started = 1;
    return npu_start(rknpu_platform_npu(), jobs, n, &ctx->owner, &ctx->pending);
}

int rknn_run_settle(rknn_ctx *ctx)
{
    npu_job_result res;
    int ret, started = 1;

    if (!ctx->pending.active) {
        ret = ctx->pending_error; /* reported once, to this context */
        ctx->pending_error = RKNN_SUCC;
        return ret;
    }
    /* One pass per step: each start moves run_node on by at least one node,
     * so at most n_nodes passes, each wait bounded by the job timeout. */
    while (started) {
        ret = npu_wait(rknpu_platform_npu(), &ctx->pending, &res);
        ctx->run_hw_us += res.hw_time_us;
        if (ret == RKNN_SUCC)
            ret = start_next_step(ctx, &started);
        if (ret != RKNN_SUCC)
            return ret;
    }
    return run_completed(ctx, &ctx->run_cores, ctx->run_hw_us, ctx->run_hw_us);
}

/* RKNN_FLAG_ASYNC_MASK: keep the finished frame's outputs while the next
 * frame runs, so rknn_outputs_get can return them. */
static int snapshot_outputs(rknn_ctx *ctx)
{
    uint32_t total = rknn_ctx_async_offset(ctx, ctx->model.n_outputs), off = 0;
    int ret;

    if (ctx->runs == 0)
        return RKNN_SUCC;
    if (!ctx->async_prev) {
        void *p = NULL;
        ret = rknpu_carve_alloc(total, 64, &p, "rknn_run: async output snapshot");
        if (ret != RKNN_SUCC)
            return ret;
        ctx->async_prev = p;
    }
    ctx->async_have_prev = 0; /* until the copy below is whole */
    for (uint32_t i = 0; i < ctx->model.n_outputs; i++) {
        rknn_model_tensor_info t;
        const uint8_t *src;
        if ((ret = rknn_io_tensor(ctx, 0, i, &t)) != RKNN_SUCC)
            return ret; /* unreachable: rknn_init validated every output */
        src = rknn_io_buffer(ctx, 0, i, t.arena_offset);
        rknpu_hook_cache_invalidate(src, t.size);
        memcpy(ctx->async_prev + off, src, t.size);
        off += rknn_ctx_async_slot_bytes(&t);
    }
    ctx->async_have_prev = 1;
    return RKNN_SUCC;
}

void rknn_run_free_cores(const rknn_ctx *self, const unsigned *cores, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        npu_pending *p = npu_core_owner(rknpu_platform_npu(), cores[i]);
        rknn_ctx *other;
        if (!p || (self && p == &self->pending))
            continue;
        other = rknn_ctx_from_handle(
            (rknn_context)(uintptr_t)((uint8_t *)p - offsetof(rknn_ctx, pending)));
        if (other)
            other->pending_error = rknn_run_settle(other);
    }
}

static int run_locked(rknn_ctx *ctx, const rknn_run_extend *extend)
{
    rknn_run_cores rc;
    int blocking = !(extend && extend->non_block) && !(ctx->flags & RKNN_FLAG_ASYNC_MASK);
    int ret = rknn_run_settle(ctx), started;

    if (ret == RKNN_SUCC && (ctx->flags & RKNN_FLAG_ASYNC_MASK))
        ret = snapshot_outputs(ctx);
    if (ret == RKNN_SUCC)
        ret = rknn_io_before_run(ctx);
    if (ret == RKNN_SUCC && cores_for_mask(ctx, ctx->core_mask, rc.core, &rc.n) != 0)
        ret = RKNN_ERR_PARAM_INVALID;
    if (ret != RKNN_SUCC)
        return ret;
    rknn_run_free_cores(ctx, rc.core, rc.n);
    if (ctx->has_cpu_nodes) {
        /* CPU operators sit between NPU segments: this run completes here. */
        uint64_t t0 = rknpu_hook_time_us(), hw_us = 0;
        ret = rknn_custom_run_graph(ctx, &rc, &hw_us);
        /* PERF_RUN is the whole inference (api.md §2.6), CPU operators too */
        return ret == RKNN_SUCC ? run_completed(ctx, &rc, hw_us, rknpu_hook_time_us() - t0) : ret;
    }
    ctx->run_cores = rc;
    ctx->run_node = 0;
    ctx->run_hw_us = 0;
    ret = start_next_step(ctx, &started);
    /* untested: the driver refusing the first step (an NPU that is not the
     * profile's: test_npu_device, through the self-test); started is 1 as a
     * model always has tasks (format layer) */
    if (ret != RKNN_SUCC || !started)
        return ret != RKNN_SUCC ? ret : RKNN_ERR_MODEL_INVALID;
    if (!blocking)
        return RKNN_SUCC;
    return rknn_run_settle(ctx);
}

int rknn_run(rknn_context context, rknn_run_extend *extend)
{
    rknn_ctx *ctx = rknn_ctx_of(context, "rknn_run");
    int ret;

    if (!ctx)
        return RKNN_ERR_CTX_INVALID;
    if (!ctx->relocated) {
        HAL_LOG_ERR("rknn_run: the context has no %s bound (RKNN_FLAG_MEM_ALLOC_OUTSIDE needs "
                    "rknn_set_weight_mem and rknn_set_internal_mem first)",
                    (ctx->flags & RKNN_FLAG_COLLECT_MODEL_INFO_ONLY) ? "memory (info-only init)"
                                                                     : "weights/internal memory");
        return RKNN_ERR_CTX_INVALID;
    }
    if (ctx->inputs_set != (1u << ctx->model.n_inputs) - 1u) {
        HAL_LOG_ERR("rknn_run: not every input has data (set mask 0x%lx of %lu inputs)",
                    (unsigned long)ctx->inputs_set, (unsigned long)ctx->model.n_inputs);
        return RKNN_ERR_INPUT_INVALID;
    }
    rknpu_hook_lock();
    ret = run_locked(ctx, extend);
    rknpu_hook_unlock();
    return ret;
}

int rknn_wait(rknn_context context, rknn_run_extend *extend)
{
    rknn_ctx *ctx = rknn_ctx_of(context, "rknn_wait");
    int ret;

    (void)extend;
    if (!ctx)
        return RKNN_ERR_CTX_INVALID;
    rknpu_hook_lock();
    ret = rknn_run_settle(ctx);
    rknpu_hook_unlock();
    return ret;
}
