/*
 * rknn_steps.c - a run's submissions (rknn_steps.h): the model's steps
 * (rknn_model_next_step) as driver jobs on the run's physical cores.
 */
#include <string.h>

#include "rknn_steps.h"
#include "rknpu_platform_internal.h"

/* The step that starts at *node (rknn_model_next_step), remembered per
 * first node for the next runs. */
static int next_step(rknn_ctx *ctx, unsigned n_cores, uint32_t *node, uint32_t end,
                     rknn_model_step *step)
{
    uint32_t from = *node;
    rknn_step_memo *m = ctx->steps ? &ctx->steps[from] : NULL;

    if (m && ctx->steps_cores != n_cores) { /* a new core mask: new steps */
        memset(ctx->steps, 0, ctx->plan.step_memo_bytes);
        ctx->steps_cores = (uint8_t)n_cores;
    }
    if (m && m->end == end) {
        *step = m->step;
        *node = m->next;
        return RKNN_SUCC;
    }
    if (rknn_model_next_step(&ctx->model, n_cores, node, end, step) != RKNN_SUCC)
        return RKNN_ERR_MODEL_INVALID;
    if (m) {
        m->end = end;
        m->next = *node;
        m->step = *step;
    }
    return RKNN_SUCC;
}

int rknn_steps_next(rknn_ctx *ctx, const rknn_run_cores *rc, uint32_t *node, uint32_t end,
                    npu_core_job *jobs, unsigned *n_jobs)
{
    rknn_model_step step;
    unsigned n = 0;
    int ret;

    *n_jobs = 0;
    if (*node >= end) /* the run's last call: nothing left */
        return RKNN_SUCC;
    if ((ret = next_step(ctx, rc->n, node, end, &step)) != RKNN_SUCC)
        return ret;
    for (unsigned i = 0; i < rc->n; i++) {
        npu_core_job *j = &jobs[n];
        if (!step.core[i].count)
            continue;
        j->core = rc->core[i];
        j->records = ctx->model.task_data;
        j->first = step.core[i].first;
#if RKNN_CONTAINER_V4
        /* a single-core run takes its core's copy of the group (format.md §5.2) */
        if (rc->n == 1 && rc->core[0] < ctx->model.single_core_copies)
            j->first += rc->core[0] * ctx->model.groups[0].count;
#endif
        j->count = step.core[i].count;
        j->stream_dma = (uint32_t)rknpu_hook_virt_to_phys(ctx->regcmd);
        j->ping_pong = step.ping_pong;
        n++;
    }
    *n_jobs = n;
    return RKNN_SUCC;
}

int rknn_steps_run(rknn_ctx *ctx, const rknn_run_cores *rc, uint32_t from, uint32_t to,
                   uint64_t *hw_us)
{
    npu_core_job jobs[RKNPU_MAX_CORES];
    npu_job_result res;
    unsigned n;
    int ret;

    /* Each step moves `from` on by at least one node: at most to - from
     * steps, each bounded by the driver's job timeout. */
    while (from < to) {
        if ((ret = rknn_steps_next(ctx, rc, &from, to, jobs, &n)) != RKNN_SUCC || n == 0)
            return ret;
        memset(&res, 0, sizeof res);
        ret = npu_run(rknpu_platform_npu(), jobs, n, &ctx->owner, &res);
        *hw_us += res.hw_time_us;
        if (ret != RKNN_SUCC) /* untested: faults are injected in models without CPU nodes */
            return ret;
    }
    return RKNN_SUCC;
}
