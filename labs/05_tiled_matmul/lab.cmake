# Lab 05 times cuBLAS SGEMM as its ceiling (support/cublas_ceiling.cpp): the referee's side links it, never a runner.
target_link_libraries(${target} PRIVATE CUDA::cublas)
