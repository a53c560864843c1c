"""The names of the ioctl request numbers the CUDA driver sends NVIDIA's kernel modules, shared by the experiments that
read them (check_contention/sample.py from /proc, driver_lock/census.py from its counts). The device files' requests
(type 'F') as the open kernel modules' nv_escape.h and nv-ioctl-numbers.h name them: the resource manager's calls
(allocate, free, control, map) and a file's registration; nvidia-uvm's (plain numbers, UVM_INITIALIZE apart) as
uvm_ioctl.h names them, UVM_INITIALIZE kept under 0xFF. Where a name is printed, its number goes with it."""
NV_ESCAPES = {0x27: "RM_ALLOC_MEMORY", 0x29: "RM_FREE", 0x2A: "RM_CONTROL", 0x2B: "RM_ALLOC", 0x34: "RM_DUP_OBJECT",
              0x35: "RM_SHARE", 0x4A: "RM_VID_HEAP_CONTROL", 0x4E: "RM_MAP_MEMORY", 0x4F: "RM_UNMAP_MEMORY",
              0x57: "RM_MAP_MEMORY_DMA", 0x58: "RM_UNMAP_MEMORY_DMA", 0x5C: "RM_EXPORT_OBJECT_TO_FD",
              0x5D: "RM_IMPORT_OBJECT_FROM_FD", 0xC8: "CARD_INFO", 0xC9: "REGISTER_FD", 0xCE: "ALLOC_OS_EVENT",
              0xCF: "FREE_OS_EVENT", 0xD1: "STATUS_CODE", 0xD2: "CHECK_VERSION_STR", 0xD4: "ATTACH_GPUS_TO_FD",
              0xD6: "SYS_PARAMS", 0xDA: "WAIT_OPEN_COMPLETE"}
UVM_CALLS = {0xFF: "UVM_INITIALIZE", 0x17: "UVM_CREATE_RANGE_GROUP", 0x18: "UVM_DESTROY_RANGE_GROUP",
             0x19: "UVM_REGISTER_GPU_VASPACE", 0x1A: "UVM_UNREGISTER_GPU_VASPACE", 0x1B: "UVM_REGISTER_CHANNEL",
             0x1C: "UVM_UNREGISTER_CHANNEL", 0x21: "UVM_MAP_EXTERNAL_ALLOCATION", 0x22: "UVM_FREE",
             0x25: "UVM_REGISTER_GPU", 0x26: "UVM_UNREGISTER_GPU", 0x27: "UVM_PAGEABLE_MEM_ACCESS",
             0x42: "UVM_UNMAP_EXTERNAL", 0x44: "UVM_ALLOC_SEMAPHORE_POOL", 0x4B: "UVM_MM_INITIALIZE"}
