/*
 * test_files.h - reading test data on every target: stdio on the host,
 * semihosting file I/O (same stdio calls) under QEMU. The sample models
 * live in ../shared/models; tests get that directory as their last argument
 * and skip (exit 77) with a message when it is missing.
 */
#ifndef TEST_FILES_H
#define TEST_FILES_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define TEST_SKIP 77

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

/* Prints the skip reason and returns TEST_SKIP if the probe file is absent. */
static inline int test_require_models(const char *dir, const char *probe_name)
{
    char path[512];
    FILE *f;

    if (!dir) {
        printf("SKIP: no sample-model directory given\n");
        return TEST_SKIP;
    }
    f = fopen(test_path(path, sizeof path, dir, probe_name), "rb");
    if (!f) {
        printf("SKIP: sample models not found at %s (they live in ../shared/models)\n", dir);
        return TEST_SKIP;
    }
    fclose(f);
    return 0;
}

#endif
