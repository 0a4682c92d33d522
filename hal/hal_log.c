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
    static const char *const prefix[] = {"E", "W", "I", "D"};
    unsigned idx = (unsigned)level < 4 ? (unsigned)level : 3;

    printf("rknpu %s: %s\n", prefix[idx], msg);
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
/* Without log strings every HAL_LOG_* logs its call site (hal_log_site)
 * and nothing formats: no hal_logf, hal_vlogf. */
/* Appends text; returns the new end (the buffer is sized for the longest line). */
static char *put_text(char *p, const char *text)
{
    while (*text)
        *p++ = *text++;
    return p;
}

static char *put_number(char *p, uintptr_t v, unsigned base)
{
    char digits[2 * sizeof v];
    unsigned n = 0;

    do {
        digits[n++] = "0123456789abcdef"[v % base];
        v /= base;
    } while (v && n < sizeof digits);
    while (n)
        *p++ = digits[--n];
    return p;
}

/* noinline: the return address must be the HAL_LOG_* call site. */
__attribute__((noinline)) void hal_log_site(unsigned site)
{
    static const char *const names[] = {"error", "warning", "info", "debug"};
    rknpu_log_level level = (rknpu_log_level)(site & 3u); /* HAL_LOG_SITE */
    unsigned line = site >> 2;
    char text[64], *p = text;

    if ((int)level > rknpu_log_threshold)
        return;
    p = put_text(p, names[level]);
    p = put_text(p, " at pc 0x");
    p = put_number(p, (uintptr_t)__builtin_return_address(0), 16);
    p = put_text(p, " line ");
    p = put_number(p, line, 10);
    *p = 0;
    rknpu_hook_log(level, text);
}
#endif
