/* The same consumer as C++: the headers must work from C++ too. */
#include <stdio.h>
#include <string.h>

#include <rknn_api.h>
#include <rknn_custom_op.h>
#include <rknn_matmul_api.h>
#include <rknpu_bm.h>

int main(void)
{
    rknpu_mem_stats st;

    if (strcmp(rknpu_soc_name(RKNPU_SOC_RK3588), "RK3588") != 0)
        return 1;
    /* Before any platform set-up the library answers with a vendor code. */
    if (rknpu_mem_get_stats(&st) != RKNN_ERR_DEVICE_UNAVAILABLE)
        return 1;
    printf("consumer: linked against rknpu-bm %s, %s\n", RKNPU_BM_VERSION_STRING,
           get_type_string(RKNN_TENSOR_INT8));
    return 0;
}
