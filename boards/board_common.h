/* board_common.h - helpers shared by the board implementations. */
#ifndef BOARD_COMMON_H
#define BOARD_COMMON_H

#include "rknpu_bm.h"

#include "npu_soc.h"

struct vnpu_device;
/* Boards with a virtual NPU: attach it behind the platform's NPU windows
 * (vnpu_attach.c). RKNN_SUCC or RKNN_ERR_DEVICE_UNAVAILABLE. */
int board_vnpu_attach(const rknpu_platform_config *p, const npu_soc_profile *soc);
/* The attached virtual NPU (fault injection and traces in tests), or NULL. */
struct vnpu_device *board_vnpu(void);

/* Boards with a virtual NPU: called after each PC kick has run (the model
 * runs a job synchronously), when set; the host's submission log uses it. */
extern void (*board_vnpu_after_kick)(void);

/* Boards with a virtual NPU, for benchmarks of the CPU side
 * (rknpu-bench --vendor): the time its jobs took so far, in timer ticks
 * (hal_time_freq_hz), and its dry-run mode (vnpu_set_dry_run), kept across
 * re-attaches (a model of another SoC switches the host's NPU). */
uint64_t board_vnpu_busy_ticks(void);
void board_vnpu_set_dry_run(int on);

/* Host board: start the submission log if RKNPU_SUBMIT_LOG names a file
 * (host_submit_log.c; this call also links its rknpu_hook_submit in). */
void host_submit_log_start(void);

/* Prints the board-independent lines of the platform report. */
void board_report_common(void);

/* The SoC chosen at build time (-Dsoc=...), for boards with a virtual NPU. */
#ifndef BOARD_SOC
#define BOARD_SOC RKNPU_SOC_RK3588
#endif

#endif
