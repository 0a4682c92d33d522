/*
 * hal_exc_stop.c - how the fault reports of hal/<arch>/exc.c end: with the
 * function the board gave hal_exceptions_install (its exit, power-off or
 * reset), else by halting the CPU. The HAL names no board symbol.
 * Board-support library.
 */
#include <stddef.h>

#include "hal.h"

void hal_arch_vectors_install(void); /* hal/<arch>/vectors.S or hal_<arch>_boot.c */

static hal_fatal_fn board_stop;

void hal_exceptions_install(hal_fatal_fn on_fatal)
{
    board_stop = on_fatal;
    hal_arch_vectors_install();
}

void hal_exc_stop(int status)
{
    if (board_stop)
        board_stop(status);
    for (;;)
        __asm__ volatile("wfi");
}
