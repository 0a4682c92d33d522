/*
 * hal_log.c - bounded, heap-free log formatting, the default log hook and the
 * threshold (the hook and threshold are public: rknpu_hooks.h).
 */
#include <stdio.h>

#include "hal.h"

#define HAL_WEAK __attribute__((weak))

volatile int rknpu_log_threshold = RKNPU_LOG_WARN;

HAL_WEAK void rknpu_hook_log(rknpu_log_level level, const char *msg)
{
    unsigned idx = (unsigned)level < 4 ? (unsigned)level : 3;

    printf("rknpu %c: %s\n", "EWID"[idx], msg); /* error, warning, info, debug */
}

#if HAL_LOG_STRINGS
#define HAL_LOG_LINE_MAX 192

void hal_vlogf(rknpu_log_level level, const char *fmt, va_list ap)
{
    char line[HAL_LOG_LINE_MAX];

    if ((int)level > rknpu_log_threshold)
        return;
    vsnprintf(line, sizeof line, fmt, ap);
    rknpu_hook_log(level, line);
}

void hal_logf(rknpu_log_level level, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    hal_vlogf(level, fmt, ap);
    va_end(ap);
}
#else
/* Without log strings every HAL_LOG_* logs its call site (hal_log_site),
 * with this file's one format: no hal_logf, hal_vlogf. */

/* noinline: the return address must be the HAL_LOG_* call site. */
__attribute__((noinline)) void hal_log_site(unsigned site)
{
    static const char names[][8] = {"error", "warning", "info", "debug"};
    rknpu_log_level level = (rknpu_log_level)(site & 3u); /* HAL_LOG_SITE */
    char text[64];

    if ((int)level > rknpu_log_threshold)
        return;
    snprintf(text, sizeof text, "%s at pc 0x%lx line %u", names[level],
             (unsigned long)(uintptr_t)__builtin_return_address(0), site >> 2);
    rknpu_hook_log(level, text);
}
#endif
