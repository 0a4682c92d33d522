/*
 * uboot_console.c - stdout/stderr of firmware started by U-Boot: picolibc's
 * stdio on the board's UART (board_uart_putc(), uart_*.c), no semihosting
 * (nothing on a board answers it). "\n" goes out as "\r\n" for terminals.
 */
#include <stdio.h>

#include "board_uboot.h"

static int console_putc(char c, FILE *f)
{
    (void)f;
    if (c == '\n')
        board_uart_putc('\r');
    board_uart_putc(c);
    return (unsigned char)c;
}

static FILE console_stream = FDEV_SETUP_STREAM(console_putc, NULL, NULL, _FDEV_SETUP_WRITE);
FILE *const stdin = &console_stream;
FILE *const stdout = &console_stream;
FILE *const stderr = &console_stream;
