/*
 * board_uboot.h - what boards started by U-Boot's `go` provide to the shared
 * console (uboot_console.c) and exit path (uboot_exit.c).
 */
#ifndef BOARD_UBOOT_H
#define BOARD_UBOOT_H

#include <stdint.h>

/* Send one character on the console UART (uart_ns16550.c, uart_pl011.c). */
void board_uart_putc(char c);
/* The 16550-style console UART's base (boards using uart_ns16550.c). */
extern const uintptr_t board_uart_base;
/* PSCI conduit of the firmware below U-Boot: HAL_PSCI_SMC (trusted
 * firmware at EL3) or HAL_PSCI_HVC. */
int board_psci_conduit(void);

#endif
