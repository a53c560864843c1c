#pragma once
/// @file placement.hpp
/// @brief Where a batch's work runs on a host of several GPUs: each grading worker on cores of its own, near its GPU
/// (the GPU's NUMA node), so that one worker's checks and CPU references never queue behind another's (docs/batch.md).
/// The labs whose timed runs cross the host link take turns on it, granted by the grader (ProcessOptions::turn_lock).

#include <filesystem>
#include <string>
#include <vector>

namespace grader {

/// The CPUs of a kernel CPU list ("0-15,32-47", as /sys and /proc write them), sorted and without repeats; empty for
/// text that is not one.
std::vector<int> parse_cpu_list(const std::string& text);

/// The CPU list of `cpus` in the kernel's own form ("0-15,32-47").
std::string format_cpu_list(const std::vector<int>& cpus);

/// The CPUs this process may run on (its affinity mask).
std::vector<int> allowed_cpus();

/// The CPUs nearest GPU `slot` (a CUDA_VISIBLE_DEVICES entry: an index in PCI bus order, or a GPU-UUID), read from
/// the driver's /proc/driver/nvidia/gpus/BUS/ and the device's /sys/bus/pci/devices/BUS/local_cpulist; empty when
/// unknown. `proc_gpus` and `sys_pci` are those two folders (tests give fake ones).
std::vector<int> cpus_near_gpu(const std::string& slot,
                               const std::filesystem::path& proc_gpus = "/proc/driver/nvidia/gpus",
                               const std::filesystem::path& sys_pci = "/sys/bus/pci/devices");

/// `cpus` grouped by physical core: the CPUs of `cpus` that are hardware threads of one core (each CPU's
/// `sys_cpu`/cpuN/topology/thread_siblings_list), in the order of each core's first CPU; a CPU whose siblings cannot be
/// read is a core of its own. `sys_cpu` is /sys/devices/system/cpu (tests give a fake one).
std::vector<std::vector<int>> cpu_cores(const std::vector<int>& cpus,
                                        const std::filesystem::path& sys_cpu = "/sys/devices/system/cpu");

/// The CPUs each grading worker, one per GPU, draws on: those of `allowed` near its GPU (`near[i]`; all of `allowed`
/// where that is empty or shares none). `grade batch --share-cpus` runs each worker on these whole, shared with the
/// workers whose GPUs are near the same CPUs.
std::vector<std::vector<int>> near_cpus(const std::vector<int>& allowed, const std::vector<std::vector<int>>& near);

/// Shares `allowed` among the grading workers, one per GPU: worker i draws on near_cpus()'s i-th, and the workers
/// that draw on the same CPUs
/// split them into disjoint parts of (nearly) equal size, whole physical cores each (`cores`, from cpu_cores(); a CPU
/// in none is a core of its own): two hardware threads of one core share its execution units, so a worker on one
/// would slow the host code of a timed run on the other. Cores are taken in the order of their first CPU, so
/// without hardware threads the parts are contiguous. Where there are fewer cores than workers, workers share them
/// one each in turn. One worker gets `allowed` whole: a single GPU (a Slurm task) is left as placed.
std::vector<std::vector<int>> share_cpus(const std::vector<int>& allowed, const std::vector<std::vector<int>>& near,
                                         const std::vector<std::vector<int>>& cores = {});

/// Confines the calling process (and what it starts later) to `cpus`; false when the kernel refused.
bool run_on(const std::vector<int>& cpus);

}  // namespace grader
