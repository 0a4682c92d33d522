/*
 * rknn_run.h - runs in flight (rknn_run.c), for the calls above the run
 * level: the io API, memory binding and the context life cycle.
 */
#ifndef RKNN_RUN_H
#define RKNN_RUN_H

#include "rknn_ctx.h"

/* Finish a run that is still in flight (non_block / async); every call that
 * touches the context's memory does this first. RKNN_SUCC if none. */
int rknn_run_settle(rknn_ctx *ctx);
/* Cores run one job at a time: finish the runs other contexts left in flight
 * (non_block / async) on the n cores a job needs, as a hardware queue
 * would; a failure is kept for that context's next call. */
void rknn_run_free_cores(const rknn_ctx *self, const unsigned *cores, unsigned n);
#endif
