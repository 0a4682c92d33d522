/*
 * rknn_steps.h - a run goes to the NPU in steps (rknn_model_next_step,
 * format.md §4.2): the cores of one step run at once, and a step starts when
 * the one before it has finished. Here the steps become driver jobs on the
 * run's physical cores.
 */
#ifndef RKNN_STEPS_H
#define RKNN_STEPS_H

#include "npu_driver.h"
#include "rknn_ctx.h"

/* The jobs of the next step of nodes [*node, end): one per core with records
 * there; *n_jobs is 0 when no node left has any. Advances *node past the
 * step. RKNN_ERR_MODEL_INVALID if the model's view does not decode. */
int rknn_steps_next(rknn_ctx *ctx, const rknn_run_cores *rc, uint32_t *node, uint32_t end,
                    npu_core_job *jobs, unsigned *n_jobs);

/* Run nodes [from, to) to completion, step by step; adds the NPU's time to
 * *hw_us. The driver's error if a step fails. */
int rknn_steps_run(rknn_ctx *ctx, const rknn_run_cores *rc, uint32_t from, uint32_t to,
                   uint64_t *hw_us);

#endif
