/*
 * rknn_format.c - the format layer as one translation unit: the parser is
 * split by job into the files below for readers, and compiled together so
 * that its internal helpers (model_internal.h, FMT_API) stay static and
 * inline as in a single file (the firmware footprint does not grow).
 */
#define FMT_API static

#include "model_attrs.c"
#include "model_check.c"
#include "model_container.c"
#include "model_exec.c"
#include "model_nodes.c"
#include "model_plan.c"
#include "model_reloc.c"
#include "model_tensors.c"
#include "model_v4.c"
