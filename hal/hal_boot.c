/*
 * hal_boot.c - what the C side reads of the boot entry's state
 * (hal/<arch>/boot_entry.S, hal_boot.h). Board-support library.
 */
#include <stdint.h>

#include "hal_boot.h"

extern const volatile uint64_t hal_boot_state[HAL_BOOT_SIZE / 8];

uint64_t hal_boot_entry_ticks(void)
{
    return hal_boot_state[HAL_BOOT_TICKS / 8];
}

unsigned hal_boot_entry_level(void)
{
    return (unsigned)hal_boot_state[HAL_BOOT_LEVEL / 8];
}
