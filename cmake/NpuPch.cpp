// Empty: the two object libraries of cmake/NpuPch.cmake that precompile
// cmake/NpuPch.h and cmake/NpuPchCodegen.h compile it.
