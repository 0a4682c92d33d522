/*
 * hal_boot_aarch64.c - PSCI SYSTEM_OFF (hal_boot.h), the architecture's name
 * for the boards' platform report. Board-support library.
 */
#include <stdint.h>

#include "hal.h"
#include "hal_boot.h"

#define PSCI_SYSTEM_OFF 0x84000008u

void hal_psci_system_off(int conduit)
{
    register uint64_t x0 __asm__("x0") = PSCI_SYSTEM_OFF;

    if (conduit == HAL_PSCI_SMC)
        __asm__ volatile("smc #0" : "+r"(x0) : : "x1", "x2", "x3", "memory");
    else
        __asm__ volatile("hvc #0" : "+r"(x0) : : "x1", "x2", "x3", "memory");
}

const char *hal_arch_name(void)
{
    return "aarch64";
}
