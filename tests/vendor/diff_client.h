/*
 * diff_client.h - the differential client's shared parts: the report, the
 * submission-log marks, half floats, the runtime-specific shim.
 *
 * One source, built twice: against Rockchip's headers and librknnrt for
 * armhf (run under scripts/vendor-run.sh), and against rknpu-bm's headers
 * and host library (DIFF_CLIENT_RKNPU_BM). Both write the same report, which
 * scripts/vendor-diff.sh compares (docs/testing.md).
 *
 * Report: OUTDIR/report.tsv, one "AREA<TAB>KEY<TAB>VALUE" line per answer;
 * byte buffers go to OUTDIR/blobs/N.bin and the value reads "blob N.bin SIZE".
 * A host tool: heap and stdio are fine here.
 */
#ifndef DIFF_CLIENT_H
#define DIFF_CLIENT_H

#include <stddef.h>
#include <stdint.h>

#include "rknn_api.h"

/* Open OUTDIR/report.tsv (and OUTDIR/blobs/); exits on failure. */
void report_open(const char *outdir);
void report_close(void);
/* One answer. */
void report(const char *area, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* A byte buffer as an answer (written to a blob file). */
void report_blob(const char *area, const char *key, const void *data, size_t size);
/* The return code of a call, as "ret N". */
void report_ret(const char *area, const char *key, int ret);

/* Run fn(arg) in a child process, for steps a runtime may not survive:
 * a crash is reported under (area, key) and the caller goes on. */
void isolated(const char *area, const char *key, void (*fn)(void *), void *arg);

/* A line {"mark":KEY} in the submission log (RKNPU_SUBMIT_LOG), so that the
 * submissions that follow are attributed to KEY. */
void mark(const char *key);

/* IEEE half <-> float, round to nearest even. */
uint16_t half_from_float(float f);
float half_to_float(uint16_t h);

/* Deterministic pseudo-random numbers (xorshift32). */
uint32_t prng_next(uint32_t *state);

/* ---- the runtime-specific shim (diff_shim_*.c) --------------------------- */

/* DMA memory the runtime holds now, in bytes. */
uint64_t shim_dma_bytes(void);
/* 1: the NPU records submissions without executing them (vendor stand-in
 * only; rknpu-bm really runs): for runs made to capture input bytes. */
void shim_record_only(int on);
/* The SoC of runs without a model (matmul): rknpu-bm's host switches its
 * virtual NPU; the stand-in under the vendor runtime was chosen at start. */
void shim_select_soc(const char *soc);
/* "vendor" or "rknpu-bm". */
const char *shim_name(void);

/* Register dual_residual_custom's CPU operator on a context
 * (client_custom_op.c); the rknn_register_custom_ops return code. */
int client_register_dual_op(rknn_context ctx);

/* The virtual NPU's time so far, in microseconds (its jobs run inside the
 * process: the stand-in's or rknpu-bm's host board). */
uint64_t shim_vnpu_us(void);
/* 1: the virtual NPU checks and completes jobs without computing
 * (vnpu_set_dry_run): runs then cost what the runtime spends. */
void shim_dry_run(int on);

/* The matmul part (diff_client_matmul.c). */
int matmul_main(const char *grid);

#endif
