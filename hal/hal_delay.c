/*
 * hal_delay.c - a busy wait, for the boards' reset and power sequences. The
 * runtime itself never waits this way: it polls the NPU and calls the
 * poll-yield hook between polls, so it is board code (hal_boot).
 */

#include "hal.h"

void hal_delay_us(uint32_t us)
{
    uint64_t end = hal_time_us() + us;

    /* Bounded: the timer is monotonic, so this ends after `us`. */
    while (hal_time_us() < end) {
    }
}
