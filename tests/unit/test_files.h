/*
 * test_files.h - reading test data on every target: stdio on the host,
 * semihosting file I/O (same stdio calls) under QEMU. The sample models
 * live in ../shared/models; tests get that directory as their last argument
 * and FAIL with a message naming the missing file when it is absent (a
 * missing input is never a reason to skip: a green run must mean checked).
 */
#ifndef TEST_FILES_H
#define TEST_FILES_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TEST_MISSING_INPUT 1 /* the exit status of a test whose input is absent */

/* Reads path into buf; returns the size, or 0 if missing / too large. */
static inline size_t test_read_file(const char *path, uint8_t *buf, size_t cap)
{
    FILE *f = fopen(path, "rb");
    size_t n;

    if (!f)
        return 0;
    n = fread(buf, 1, cap, f);
    if (n == cap && fgetc(f) != EOF)
        n = 0; /* larger than the buffer */
    fclose(f);
    return n;
}

/* The whole file in a malloc'd buffer (host tests: the real network's 4 MB
 * model), or NULL after a FAIL line naming the file. */
static inline uint8_t *test_load_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf = NULL;
    long n = -1;

    *size = 0;
    if (!f) {
        printf("FAIL: missing input file %s\n", path);
        return NULL;
    }
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0) {
        buf = malloc((size_t)n);
        if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
            free(buf);
            buf = NULL;
        }
    }
    fclose(f);
    if (!buf)
        printf("FAIL: cannot read %s\n", path);
    else
        *size = (size_t)n;
    return buf;
}

/* dir + "/" + name into out (bounded). */
static inline const char *test_path(char *out, size_t cap, const char *dir, const char *name)
{
    snprintf(out, cap, "%s/%s", dir, name);
    return out;
}

/* The models directory: the last argument (both libcs put user arguments
 * last), or NULL when none was given. */
static inline const char *test_models_dir(int argc, char **argv)
{
    if (argc < 2 || !argv[argc - 1] || strstr(argv[argc - 1], ".elf"))
        return NULL;
    return argv[argc - 1];
}

/* 0 if the probe file is there, else a FAIL line naming it and
 * TEST_MISSING_INPUT (the test's exit status). */
static inline int test_require_models(const char *dir, const char *probe_name)
{
    char path[512];
    FILE *f;

    if (!dir) {
        printf("FAIL: no sample-model directory given (../shared/models)\n");
        return TEST_MISSING_INPUT;
    }
    f = fopen(test_path(path, sizeof path, dir, probe_name), "rb");
    if (!f) {
        printf("FAIL: missing input file %s (the sample models live in ../shared/models)\n", path);
        return TEST_MISSING_INPUT;
    }
    fclose(f);
    return 0;
}

#endif
