/*
 * tool_files.h - whole-file reading for the host tools, host-only tests
 * and the examples' host builds (they may use the heap; the library never
 * does).
 */
#ifndef TOOL_FILES_H
#define TOOL_FILES_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* Reads path into a malloc'ed buffer (at least one byte, so an empty file is
 * not mistaken for a failure) and stores its length in *size. Returns NULL,
 * with errno set, if the file cannot be opened (fopen's errno) or, once
 * open, cannot be read (EIO), is larger than max_bytes or cannot be sized
 * (EFBIG) or does not fit in memory (ENOMEM). The caller frees the buffer. */
static inline uint8_t *tool_read_file(const char *path, size_t max_bytes, size_t *size)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf = NULL;
    long n;

    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && (unsigned long)n <= max_bytes &&
        fseek(f, 0, SEEK_SET) == 0) {
        buf = malloc(n ? (size_t)n : 1);
        if (!buf)
            errno = ENOMEM; /* ISO C's malloc need not say */
        if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
            free(buf);
            buf = NULL;
            errno = EIO;
        }
        *size = (size_t)n;
    } else {
        errno = EFBIG;
    }
    fclose(f);
    return buf;
}

#endif
