// Empty: cmake/NpuPch.cmake precompiles cmake/NpuPch.h through this target.
