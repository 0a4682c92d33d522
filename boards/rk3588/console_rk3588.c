/*
 * console_rk3588.c - stdout on the RK3588 debug UART (UART2, 8250-style,
 * 1500000 8N1 as left by U-Boot), and _exit() for firmware without an OS.
 */
#include <stdint.h>
#include <stdio.h>

#include "hal.h"

#define UART2_BASE      0xFEB50000u
#define UART_THR        0x00u
#define UART_LSR        0x14u /* register shift 2 */
#define UART_LSR_THRE   0x20u
#define UART_SPIN_LIMIT 100000u

static int uart_putc(char c, FILE *f)
{
    (void)f;
    if (c == '\n')
        uart_putc('\r', f);
    /* Bounded: a wedged UART drops characters rather than hanging boot. */
    for (unsigned i = 0; i < UART_SPIN_LIMIT; i++)
        if (hal_mmio_read32(UART2_BASE + UART_LSR) & UART_LSR_THRE)
            break;
    hal_mmio_write32(UART2_BASE + UART_THR, (uint8_t)c);
    return (unsigned char)c;
}

static FILE uart_stream = FDEV_SETUP_STREAM(uart_putc, NULL, NULL, _FDEV_SETUP_WRITE);
FILE *const stdin = &uart_stream;
FILE *const stdout = &uart_stream;
FILE *const stderr = &uart_stream;

/* Firmware has nowhere to return to: report and park the core. */
void _exit(int status)
{
    printf("firmware exited with status %d\n", status);
    for (;;)
        __asm__ volatile("wfi");
}
