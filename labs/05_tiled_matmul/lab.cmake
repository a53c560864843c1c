# Lab 05 times cuBLAS SGEMM as its ceiling (cublas_ceiling.cpp).
target_link_libraries(${target} PRIVATE CUDA::cublas)
