/*
 * hal_boot_armv7.c - what the C side reads of the boot entry
 * (boot_entry.S) and PSCI SYSTEM_OFF. Board-support library.
 */
#include <stdint.h>

#include "hal_boot.h"

extern const volatile uint64_t hal_boot_state[HAL_BOOT_SIZE / 8];

#define PSCI_SYSTEM_OFF 0x84000008u

uint64_t hal_boot_entry_ticks(void)
{
    return hal_boot_state[HAL_BOOT_TICKS / 8];
}

unsigned hal_boot_entry_level(void)
{
    return (unsigned)hal_boot_state[HAL_BOOT_LEVEL / 8];
}

void hal_psci_system_off(int conduit)
{
    register uint32_t r0 __asm__("r0") = PSCI_SYSTEM_OFF;

    if (conduit == HAL_PSCI_SMC)
        __asm__ volatile(".arch_extension sec\n\tsmc #0" : "+r"(r0) : : "r1", "r2", "r3", "memory");
    else
        __asm__ volatile(".arch_extension virt\n\thvc #0"
                         : "+r"(r0)
                         :
                         : "r1", "r2", "r3", "memory");
}
