/* rknn_custom.h - the mixed NPU/CPU graph executor (rknn_custom.c). */
#ifndef RKNN_CUSTOM_H
#define RKNN_CUSTOM_H

#include "npu_driver.h"
#include "rknn_ctx.h"

/* Models with CPU operators between NPU segments, and releasing the
 * registered operators' buffers (rknn_destroy). */
int rknn_custom_has_cpu_nodes(const rknn_ctx *ctx);
void rknn_custom_release_all(rknn_ctx *ctx);
/* rknn_dup_context: the new context gets the source's ops, registered again
 * (each node's init runs for it), as Rockchip's runtime's copy runs without
 * a new rknn_register_custom_ops. */
int rknn_custom_copy_ops(rknn_ctx *dst, const rknn_ctx *src);

/* Run the graph in node order: NPU segments (in steps, rknn_steps.h, on the
 * cores rc) and the registered CPU ops between them.
 * hw_us gets the NPU time. */
int rknn_custom_run_graph(rknn_ctx *ctx, const rknn_run_cores *rc, uint64_t *hw_us);

#endif
