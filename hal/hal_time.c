/*
 * hal_time.c - microseconds from the architecture timer, without floating point.
 */

#include "hal.h"

uint64_t hal_ticks_to_us(uint64_t ticks, uint64_t freq_hz)
{
    /* Split so that ticks * 1e6 never overflows 64 bits. */
    if (freq_hz == 0)
        return 0;
    return (ticks / freq_hz) * 1000000u + ((ticks % freq_hz) * 1000000u) / freq_hz;
}

uint64_t hal_time_us(void)
{
    return hal_ticks_to_us(hal_time_ticks(), hal_time_freq_hz());
}
