/*
 * board_npu_usage.c - the boards' inference hooks: NPU jobs and NPU time
 * per owner (the context and the user argument set with
 * rknpu_context_set_user), printed by board_print_npu_usage().
 *
 * Built as a library of its own (boards/meson.build): a program links these
 * hook definitions only when it calls board_print_npu_usage(), so a test
 * that defines the hooks itself keeps its own.
 */
#include <stdio.h>

#include "board.h"
#include "rknpu_hooks.h"

#define USAGE_OWNERS 4 /* the last slot also takes any owner beyond it */

static struct {
    rknpu_job_owner owner;
    uint32_t jobs, failed;
    uint64_t started, busy_us;
} usage[USAGE_OWNERS];
static unsigned n_usage;

static unsigned usage_slot(const rknpu_job_owner *o)
{
    unsigned i = 0;

    while (i < n_usage && (usage[i].owner.context != o->context || usage[i].owner.user != o->user))
        i++;
    if (i < n_usage)
        return i;
    if (n_usage == USAGE_OWNERS)
        return USAGE_OWNERS - 1u;
    usage[n_usage].owner = *o;
    return n_usage++;
}

/* Jobs of one owner never overlap (a context runs one job at a time), so a
 * start time per owner times jobs that run in parallel on other cores. */
void rknpu_hook_inference_begin(const rknpu_job_owner *owner, unsigned core_mask)
{
    (void)core_mask;
    usage[usage_slot(owner)].started = rknpu_hook_time_us();
}

void rknpu_hook_inference_end(const rknpu_job_owner *owner, unsigned core_mask, int result)
{
    unsigned i = usage_slot(owner);

    (void)core_mask;
    usage[i].jobs++;
    usage[i].failed += result != 0;
    usage[i].busy_us += rknpu_hook_time_us() - usage[i].started;
}

void board_print_npu_usage(void)
{
    for (unsigned i = 0; i < n_usage; i++) {
        if (usage[i].owner.context)
            printf("  npu usage    context 0x%llx (user %p): ",
                   (unsigned long long)usage[i].owner.context, usage[i].owner.user);
        else
            printf("  npu usage    the library's own jobs (self-test network): ");
        printf("%lu jobs, %lu failed, %llu us\n", (unsigned long)usage[i].jobs,
               (unsigned long)usage[i].failed, (unsigned long long)usage[i].busy_us);
    }
}
