/*
 * uboot_exit.c - the end of firmware started by U-Boot (bootm of a standalone
 * image, or go): after main()
 * returns (or exit() is called) print how long it ran since U-Boot jumped to
 * it, then power off through PSCI SYSTEM_OFF or, built with
 * -Don_exit=uboot, return to U-Boot as if the program returned the exit status.
 */
#include <stdio.h>
#include <unistd.h>

#include "board_uboot.h"
#include "hal.h"
#include "hal_boot.h"

#ifndef BOARD_EXIT_TO_UBOOT
#define BOARD_EXIT_TO_UBOOT 0
#endif

static void print_run_time(int status)
{
    uint64_t ticks = hal_time_ticks() - hal_boot_entry_ticks();

    printf("boot: exit status %d, %llu us since U-Boot started the firmware (entered at EL%u)\n",
           status, (unsigned long long)hal_ticks_to_us(ticks, hal_time_freq_hz()),
           hal_boot_entry_level());
}

void _exit(int status)
{
    print_run_time(status);
    if (BOARD_EXIT_TO_UBOOT) {
        printf("boot: returning to U-Boot\n");
        hal_boot_return(status);
        printf("boot: cannot return to U-Boot from a HYP entry\n");
    }
    printf("boot: power off (PSCI SYSTEM_OFF)\n");
    hal_psci_system_off(board_psci_conduit());
    printf("boot: PSCI SYSTEM_OFF refused; parking the CPU\n");
    for (;;)
        __asm__ volatile("wfi");
}
