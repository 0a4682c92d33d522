/*
 * test_unsupported.h - the sample models that do not load yet, read from
 * tests/unsupported_models.txt (its path in TEST_UNSUPPORTED_LIST, set by
 * meson), for the host tests that walk the models directory. A missing or
 * malformed list is a failure, never a skip. Host only (stdio, no heap).
 *
 *   unsupported_load(&list)              0, or prints why and returns -1
 *   unsupported_find(&list, "x.rknn")    the entry, or NULL (must load)
 *   unsupported_log(msg)                 call from rknpu_hook_log
 *   unsupported_log_clear()              before the call under test
 *   unsupported_verdict(u, ret)          0 if ret and the log match u
 */
#ifndef TEST_UNSUPPORTED_H
#define TEST_UNSUPPORTED_H

#include <stdio.h>
#include <string.h>

#include "rknn_api.h"

#ifndef TEST_UNSUPPORTED_LIST
#error "TEST_UNSUPPORTED_LIST (path of tests/unsupported_models.txt) must be defined"
#endif

#define UNSUPPORTED_MAX 32

typedef struct {
    char file[128];
    char code_name[64];
    int code;
    char message[256];
    int seen; /* found in the directory */
} unsupported_model;

typedef struct {
    unsupported_model m[UNSUPPORTED_MAX];
    size_t n;
} unsupported_list;

static const struct {
    const char *name;
    int code;
} unsupported_codes[] = {
#define UNSUPPORTED_CODE(c)                                                                        \
    {                                                                                              \
#c, c                                                                                      \
    }
    UNSUPPORTED_CODE(RKNN_ERR_FAIL),           UNSUPPORTED_CODE(RKNN_ERR_PARAM_INVALID),
    UNSUPPORTED_CODE(RKNN_ERR_MODEL_INVALID),  UNSUPPORTED_CODE(RKNN_ERR_MALLOC_FAIL),
    UNSUPPORTED_CODE(RKNN_ERR_DEVICE_UNMATCH), UNSUPPORTED_CODE(RKNN_ERR_TARGET_PLATFORM_UNMATCH),
#undef UNSUPPORTED_CODE
};

static inline int unsupported_load(unsupported_list *l)
{
    char line[512];
    FILE *f = fopen(TEST_UNSUPPORTED_LIST, "r");
    int lineno = 0, bad = 0;

    memset(l, 0, sizeof *l);
    if (!f) {
        printf("FAIL: cannot read the unsupported-model list %s\n", TEST_UNSUPPORTED_LIST);
        return -1;
    }
    while (fgets(line, sizeof line, f)) {
        unsupported_model *u = &l->m[l->n];
        size_t len = strlen(line);
        int rest = 0;

        lineno++;
        while (len && (line[len - 1] == '\n' || line[len - 1] == '\r' || line[len - 1] == ' '))
            line[--len] = 0;
        if (line[strspn(line, " \t")] == 0 || line[strspn(line, " \t")] == '#')
            continue;
        if (l->n == UNSUPPORTED_MAX ||
            sscanf(line, "%127s %63s %n", u->file, u->code_name, &rest) != 2 || !line[rest]) {
            printf("FAIL: %s:%d: want \"file code message\": %s\n", TEST_UNSUPPORTED_LIST, lineno,
                   line);
            bad = 1;
            continue;
        }
        snprintf(u->message, sizeof u->message, "%s", line + rest);
        u->code = 1; /* no RKNN code is positive */
        for (size_t i = 0; i < sizeof unsupported_codes / sizeof unsupported_codes[0]; i++)
            if (strcmp(u->code_name, unsupported_codes[i].name) == 0)
                u->code = unsupported_codes[i].code;
        if (u->code == 1) {
            printf("FAIL: %s:%d: unknown return code %s\n", TEST_UNSUPPORTED_LIST, lineno,
                   u->code_name);
            bad = 1;
            continue;
        }
        l->n++;
    }
    fclose(f);
    return bad ? -1 : 0;
}

static inline unsupported_model *unsupported_find(unsupported_list *l, const char *file)
{
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->m[i].file, file) == 0)
            return &l->m[i];
    return NULL;
}

/* Every error line logged since the last clear, newline-separated. */
static char unsupported_logged[4096];

static inline void unsupported_log_clear(void)
{
    unsupported_logged[0] = 0;
}

static inline void unsupported_log(const char *msg)
{
    size_t n = strlen(unsupported_logged);

    if (msg && n + 2 < sizeof unsupported_logged)
        snprintf(unsupported_logged + n, sizeof unsupported_logged - n, "%s\n", msg);
}

/* 0 when ret and the logged text are the listed error; else prints what
 * changed (update tests/unsupported_models.txt when support lands). */
static inline int unsupported_verdict(const unsupported_model *u, int ret)
{
    if (ret == u->code && strstr(unsupported_logged, u->message))
        return 0;
    printf("FAIL %s: listed in %s as failing with %s \"%s\"; got %d, log: %s%s", u->file,
           TEST_UNSUPPORTED_LIST, u->code_name, u->message, ret,
           unsupported_logged[0] ? unsupported_logged : "(nothing logged)\n",
           ret == RKNN_SUCC ? "  (it loads now: drop it from the list)\n" : "");
    return 1;
}

/* Listed models the directory lacks (a stale list is a failure too). */
static inline int unsupported_check_seen(const unsupported_list *l, const char *dir)
{
    int bad = 0;

    for (size_t i = 0; i < l->n; i++)
        if (!l->m[i].seen) {
            printf("FAIL: %s lists %s, which is not in %s\n", TEST_UNSUPPORTED_LIST, l->m[i].file,
                   dir);
            bad++;
        }
    return bad;
}

#endif
