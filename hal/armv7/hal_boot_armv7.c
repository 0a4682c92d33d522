/*
 * hal_boot_armv7.c - PSCI SYSTEM_OFF (hal_boot.h), the architecture's name
 * for the boards' platform report. Board-support library.
 */
#include <stdint.h>

#include "hal.h"
#include "hal_boot.h"

#define PSCI_SYSTEM_OFF 0x84000008u

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

const char *hal_arch_name(void)
{
    return "armv7";
}
