/*
 * hal_boot_armv7.c - PSCI SYSTEM_OFF (hal_boot.h), SMCs (hal.h), the architecture's name
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

/* SMCCC (SMC32): the callee may change r0-r3 and r12. */
uintptr_t hal_smc(uint32_t fid, uintptr_t a1, uintptr_t a2, uintptr_t a3)
{
    register uint32_t r0 __asm__("r0") = fid;
    register uint32_t r1 __asm__("r1") = a1;
    register uint32_t r2 __asm__("r2") = a2;
    register uint32_t r3 __asm__("r3") = a3;

    __asm__ volatile(".arch_extension sec\n\tsmc #0"
                     : "+r"(r0), "+r"(r1), "+r"(r2), "+r"(r3)
                     :
                     : "r12", "memory");
    return (uintptr_t)r0;
}

const char *hal_arch_name(void)
{
    return "armv7";
}
