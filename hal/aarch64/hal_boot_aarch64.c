/*
 * hal_boot_aarch64.c - what the C side reads of the boot entry
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
    register uint64_t x0 __asm__("x0") = PSCI_SYSTEM_OFF;

    if (conduit == HAL_PSCI_SMC)
        __asm__ volatile("smc #0" : "+r"(x0) : : "x1", "x2", "x3", "memory");
    else
        __asm__ volatile("hvc #0" : "+r"(x0) : : "x1", "x2", "x3", "memory");
}
