/*
 * rknn_format.c - the format layer as one translation unit: the parser is
 * split by job into the files below for readers, and compiled together so
 * that its internal helpers (model_internal.h, FMT_API) stay static and
 * inline as in a single file (the firmware footprint does not grow).
 *
 * The files are a one-way stack, included bottom to top: each calls only
 * the FlatBuffer reader (rknn_fbs.c, its own object) and the files included
 * before it, never one after it. The `layers` test
 * (tests/tools/check_layers.py) holds the same list and checks this order
 * and every call between the files; model_internal.h says what each file
 * does and declares what it shares, in the same order.
 */
#define FMT_API static

/* In the stack's order, bottom to top (not sorted). */
/* clang-format off */
#include "model_fields.c"
#include "model_attrs.c"
#include "model_tensors.c"
#include "model_v4_access.c"
#include "model_nodes.c"
#include "model_exec.c"
#include "model_check.c"
#include "model_plan.c"
#include "model_reloc.c"
#include "model_v4.c"
#include "model_container.c"
/* clang-format on */
