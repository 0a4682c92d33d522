/*
 * submit_log.c - NPU submissions as JSON lines (submit_log.h).
 */
#include "submit_log.h"

#include <stdlib.h>
#include <string.h>

#include "npu_regcmd.h"

static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t rd64(const uint8_t *p)
{
    return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

static void put_words(FILE *f, const uint8_t *w, uint32_t n)
{
    fputs("[", f);
    for (uint32_t k = 0; k < n; k++)
        fprintf(f, "%s\"%016llx\"", k ? "," : "", (unsigned long long)rd64(w + 8u * k));
    fputs("]", f);
}

static void put_task(FILE *f, const uint8_t *r, uint32_t index, uint64_t stream_dma,
                     submit_log_map map, void *ctx)
{
    uint32_t amount = rd32(r + NPU_TASK_REGCFG_AMOUNT);
    uint64_t regcmd = stream_dma + rd64(r + NPU_TASK_REGCMD_ADDR);
    uint32_t words = amount + NPU_PC_TAIL_WORDS; /* body and the tail that links the chain */
    const uint8_t *w = map(ctx, regcmd, (size_t)words * 8u);

    fprintf(f,
            "{\"i\":%lu,\"flags\":%lu,\"op_idx\":%lu,\"enable_mask\":%lu,\"int_mask\":%lu,"
            "\"int_clear\":%lu,\"regcfg_amount\":%lu,\"regcfg_offset\":%lu,\"regcmd\":%llu,"
            "\"words\":",
            (unsigned long)index, (unsigned long)rd32(r + NPU_TASK_FLAGS),
            (unsigned long)rd32(r + NPU_TASK_OP_IDX), (unsigned long)rd32(r + NPU_TASK_ENABLE_MASK),
            (unsigned long)rd32(r + NPU_TASK_INT_MASK), (unsigned long)rd32(r + NPU_TASK_INT_CLEAR),
            (unsigned long)amount, (unsigned long)rd32(r + NPU_TASK_REGCFG_OFFSET),
            (unsigned long long)regcmd);
    if (w)
        put_words(f, w, words);
    else
        fputs("null", f); /* not inside memory the NPU may read */
    fputs("}", f);
}

void submit_log_slice(FILE *f, const char *src, const rknpu_submit_slice *s, submit_log_map map,
                      void *ctx)
{
    fprintf(f,
            "{\"src\":\"%s\",\"ev\":\"slice\",\"job\":%lu,\"core\":%u,\"core_mask\":%u,"
            "\"first\":%lu,\"count\":%lu,\"task_con\":%lu,\"pp\":%u,\"int_mask\":%lu,"
            "\"int_clear\":%lu,\"tasks\":[",
            src, (unsigned long)s->job, s->core, s->core_mask, (unsigned long)s->first,
            (unsigned long)s->count, (unsigned long)s->task_con, s->pingpong,
            (unsigned long)s->int_mask, (unsigned long)s->int_clear);
    for (uint32_t k = 0; k < s->count; k++) {
        if (k)
            fputs(",", f);
        put_task(f, s->records + (size_t)k * NPU_TASK_RECORD_SIZE, s->first + k, s->stream_dma, map,
                 ctx);
    }
    fputs("]}\n", f);
    fflush(f);
}

static void put_json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fputc('\\', f);
        if ((unsigned char)*s >= 0x20)
            fputc(*s, f);
    }
    fputc('"', f);
}

void submit_log_submit(FILE *f, const char *src, uint32_t job, uint32_t flags, uint32_t timeout,
                       uint32_t core_mask, uint32_t cores, uint32_t task_start,
                       uint32_t task_number, const uint32_t *subcore_pairs, unsigned npairs,
                       const char *error)
{
    fprintf(f,
            "{\"src\":\"%s\",\"ev\":\"submit\",\"job\":%lu,\"flags\":%lu,\"timeout\":%lu,"
            "\"core_mask\":%lu,\"cores\":%lu,\"task_start\":%lu,\"task_number\":%lu,\"subcore\":[",
            src, (unsigned long)job, (unsigned long)flags, (unsigned long)timeout,
            (unsigned long)core_mask, (unsigned long)cores, (unsigned long)task_start,
            (unsigned long)task_number);
    for (unsigned k = 0; k < npairs; k++)
        fprintf(f, "%s[%lu,%lu]", k ? "," : "", (unsigned long)subcore_pairs[2 * k],
                (unsigned long)subcore_pairs[2 * k + 1]);
    fputs("],\"error\":", f);
    put_json_string(f, error);
    fputs("}\n", f);
    fflush(f);
}

void submit_log_mem(FILE *f, const char *src, const char *what, uint32_t handle, uint64_t dma,
                    uint64_t size, uint32_t flags)
{
    fprintf(f,
            "{\"src\":\"%s\",\"ev\":\"mem\",\"what\":\"%s\",\"handle\":%lu,\"dma\":%llu,"
            "\"size\":%llu,\"flags\":%lu}\n",
            src, what, (unsigned long)handle, (unsigned long long)dma, (unsigned long long)size,
            (unsigned long)flags);
    fflush(f);
}

#define WATCH_PAGE 4096u

int submit_log_watch_init(submit_log_watch *w, const uint8_t *mem, uint64_t dma, size_t size,
                          FILE *data)
{
    w->mem = mem;
    w->dma = dma;
    w->size = size;
    w->data = data;
    w->shadow = calloc(1, size);
    return w->shadow ? 0 : -1;
}

static int page_changed(const submit_log_watch *w, size_t at, size_t end)
{
    size_t n = end - at < WATCH_PAGE ? end - at : WATCH_PAGE;

    return memcmp(w->mem + at, w->shadow + at, n) != 0;
}

/* The changed pages of one range, merged into runs; each run is written to
 * the data file, logged and copied into the shadow. */
static unsigned log_range(FILE *f, submit_log_watch *w, size_t offset, size_t length,
                          unsigned logged)
{
    size_t end = offset + length > w->size ? w->size : offset + length;

    for (size_t at = offset; at < end;) {
        size_t run = at;
        long pos;
        while (run < end && page_changed(w, run, end))
            run = run + WATCH_PAGE < end ? run + WATCH_PAGE : end;
        if (run == at) {
            at = at + WATCH_PAGE < end ? at + WATCH_PAGE : end;
            continue;
        }
        fseek(w->data, 0, SEEK_END); /* other processes may append to the same file */
        pos = ftell(w->data);
        fwrite(w->mem + at, 1, run - at, w->data);
        memcpy(w->shadow + at, w->mem + at, run - at);
        fprintf(f, "%s[%llu,%llu,%ld]", logged++ ? "," : "", (unsigned long long)(w->dma + at),
                (unsigned long long)(run - at), pos);
        at = run;
    }
    return logged;
}

void submit_log_buffers(FILE *f, const char *src, uint32_t job, const submit_log_watch *w,
                        const submit_log_range *ranges, unsigned n)
{
    fprintf(f, "{\"src\":\"%s\",\"ev\":\"buffers\",\"job\":%lu,\"list\":[", src,
            (unsigned long)job);
    for (unsigned k = 0; k < n; k++)
        fprintf(f, "%s[%llu,%llu]", k ? "," : "", (unsigned long long)(w->dma + ranges[k].offset),
                (unsigned long long)ranges[k].length);
    fputs("]}\n", f);
}

void submit_log_cpu_writes(FILE *f, const char *src, uint32_t job, submit_log_watch *w,
                           const submit_log_range *ranges, unsigned n)
{
    unsigned logged = 0;

    fprintf(f, "{\"src\":\"%s\",\"ev\":\"cpu_writes\",\"job\":%lu,\"ranges\":[", src,
            (unsigned long)job);
    for (unsigned k = 0; k < n; k++)
        logged = log_range(f, w, ranges[k].offset, ranges[k].length, logged);
    fputs("]}\n", f);
    fflush(w->data);
    fflush(f);
}

void submit_log_npu_ran(submit_log_watch *w, const submit_log_range *ranges, unsigned n)
{
    for (unsigned k = 0; k < n; k++) {
        size_t end = ranges[k].offset + ranges[k].length;
        if (end > w->size)
            end = w->size;
        if (ranges[k].offset < end)
            memcpy(w->shadow + ranges[k].offset, w->mem + ranges[k].offset, end - ranges[k].offset);
    }
}
