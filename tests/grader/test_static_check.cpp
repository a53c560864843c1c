// The static check's pure functions (grader/static_check.hpp) on captured tool output: the readers of objdump, nvcc's
// dependency files and PTX, and every rule, each with a case it must refuse and a fair case it must accept.
// tests/exploits/ runs the same rules end to end on objects nvcc compiled.

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include "grader/manifest.hpp"
#include "grader/static_check.hpp"

using Catch::Matchers::ContainsSubstring;
using namespace grader::static_check;

namespace {

Context lab01() {
  Context c;
  c.lab_id = "01_coalescing";
  c.source_name = "student.cu";
  c.source = "/course/labs/01_coalescing/student.cu";
  c.contract_dir = "/course/build/contract/01_coalescing";
  c.contract_headers = {"coalescing.hpp"};
  c.lab_dir = "/course/labs/01_coalescing";
  c.lab_headers = {"coalescing.hpp", "cpu_reference.hpp"};
  c.system_dirs = {"/usr/local/cuda/include", "/usr/include/c++/12", "/usr/include"};
  return c;
}

Symbol use(std::string name) { return {std::move(name), "*UND*", false, false}; }
Symbol strong(std::string name, std::string section = ".text") {
  return {std::move(name), std::move(section), true, false};
}
Symbol weak(std::string name, std::string section) { return {std::move(name), std::move(section), true, true}; }
Symbol local(std::string name) { return {std::move(name), ".text", false, false}; }

// The rules of the findings, in order.
std::vector<std::string> rules(const std::vector<Finding>& findings) {
  std::vector<std::string> out;
  for (const auto& f : findings) out.push_back(f.rule);
  return out;
}
using Rules = std::vector<std::string>;

}  // namespace

TEST_CASE("globs match any run of characters at a star and nothing else", "[grader][static_check]") {
  CHECK(glob_match("cudaStreamCreate*", "cudaStreamCreate"));
  CHECK(glob_match("cudaStreamCreate*", "cudaStreamCreateWithFlags"));
  CHECK_FALSE(glob_match("cudaStreamCreate*", "cudaStreamDestroy"));
  CHECK(glob_match("*L2::evict_last*", "ld.global.L2::evict_last.f32"));
  CHECK(glob_match("cub/*", "cub/device/device_reduce.cuh"));
  CHECK_FALSE(glob_match("cub/*", "mycub/x.h"));
  CHECK(glob_match("open", "open"));
  CHECK_FALSE(glob_match("open", "open64"));
  CHECK(glob_match("a*b*c", "aXXbYYc"));
  CHECK_FALSE(glob_match("a*b*c", "aXXbYY"));
}

TEST_CASE("a demangled name is reduced to the entity it names", "[grader][static_check]") {
  CHECK(demangle("cudaMalloc") == "cudaMalloc");
  CHECK(demangle("_ZN7harness6medianESt6vectorIdSaIdEE") ==
        "harness::median(std::vector<double, std::allocator<double> >)");
  const auto e = GENERATE(table<std::string, std::string>({
      {"harness::median(std::vector<double, std::allocator<double> >)", "harness::median"},
      {"harness::implementations[abi:cxx11]()", "harness::implementations"},
      {"void std::vector<float, std::allocator<float> >::_M_realloc_insert<float const&>(float const&)",
       "std::vector<float, std::allocator<float> >::_M_realloc_insert<float const&>"},
      {"operator new(unsigned long)", "operator new"},
      {"operator delete[](void*, unsigned long)", "operator delete[]"},
      {"std::basic_ostream<char, std::char_traits<char> >& std::operator<< <std::char_traits<char> >"
       "(std::basic_ostream<char, std::char_traits<char> >&, char const*)",
       "std::operator<< <std::char_traits<char> >"},
      {"std::less<void>::operator()(int const&, int const&) const", "std::less<void>::operator()"},
      {"vtable for std::basic_ofstream<char, std::char_traits<char> >",
       "std::basic_ofstream<char, std::char_traits<char> >"},
      {"typeinfo name for lab07::HostMemory", "lab07::HostMemory"},
      {"(anonymous namespace)::launch_scale(float const*, float*, long, float, CUstream_st*) [clone .cold]",
       "(anonymous namespace)::launch_scale"},
      {"void (*&std::forward<void (*&)(float const*)>(std::remove_reference<void (*&)(float const*)>::type&))(float "
       "const*)",
       "std::forward<void (*&)(float const*)>"},
      {"decltype (((forward<int>)({parm#1}))<((forward<int>)({parm#2}))) std::less<void>::_S_cmp<int, int>(int&&, "
       "int&&)",
       "std::less<void>::_S_cmp<int, int>"},
      {"std::piecewise_construct", "std::piecewise_construct"},
  }));
  CAPTURE(std::get<0>(e));
  CHECK(entity_of(std::get<0>(e)) == std::get<1>(e));
}

TEST_CASE("objdump's symbol table gives names, sections, binding and weakness", "[grader][static_check]") {
  const auto symbols = parse_symbol_table(R"(
o.o:     file format elf64-x86-64

SYMBOL TABLE:
0000000000000000 l    df *ABS*	0000000000000000 student.cudafe1.cpp
0000000000000000 l    d  .text	0000000000000000 .text
0000000000000000 l     F .text	000000000000000c _ZL26__cudaUnregisterBinaryUtilv
0000000000000930 g     F .text	000000000000009d _ZN48_GLOBAL__N__be7456bf_10_student_cu_49ca27ee_936912launch_scaleEPKfPflfP11CUstream_st
0000000000000000  w    F .text._ZN7harness17LauncherRegistrarIPFvPKfPflfP11CUstream_stEEC2EPKcSA_S7_	00000000000003a1 _ZN7harness17LauncherRegistrarIPFvPKfPflfP11CUstream_stEEC1EPKcSA_S7_
0000000000000000 u     O .bss._ZSt19piecewise_construct	0000000000000001 _ZSt19piecewise_construct
0000000000000000  w    O .data.rel.local.DW.ref.__gxx_personality_v0	0000000000000008 .hidden DW.ref.__gxx_personality_v0
0000000000000000         *UND*	0000000000000000 cudaGetLastError
)");
  REQUIRE(symbols.size() == 6);
  CHECK(symbols[0].name == "_ZL26__cudaUnregisterBinaryUtilv");
  CHECK_FALSE(symbols[0].global);
  CHECK(symbols[1].global);
  CHECK_FALSE(symbols[1].weak);
  CHECK(symbols[1].section == ".text");
  CHECK(symbols[2].weak);
  CHECK(symbols[2].section.starts_with(".text._ZN7harness17LauncherRegistrar"));
  CHECK(symbols[3].weak);  // a unique global is one shared copy, like a weak one
  CHECK(symbols[4].name == "DW.ref.__gxx_personality_v0");
  CHECK(symbols[5].name == "cudaGetLastError");
  CHECK_FALSE(symbols[5].defined());
}

TEST_CASE("objdump's disassembly gives each function's relocations, instructions and system calls",
          "[grader][static_check]") {
  const auto functions = parse_disassembly(R"(
Disassembly of section .text:

0000000000000930 <_ZN12_GLOBAL__N_112launch_scaleEPKfPflfP11CUstream_st>:
 930:	push   %rbx
 96d:	call   972 <_ZN12_GLOBAL__N_112launch_scaleEPKfPflfP11CUstream_st+0x42>
			96e: R_X86_64_PLT32	__cudaPushCallConfiguration-0x4
 972:	mov    $0x27,%eax
 977:	syscall
 979:	int    $0x80

0000000000000e90 <_ZN12_GLOBAL__N_18warp_sumEf>:
     e90:	48 83 ec 18          	sub    $0x18,%rsp
     e94:	c7 44 24 0c 01 00 00 00 	movl   $0x1,0xc(%rsp)
     ea0:	e8 00 00 00 00       	call   ea5 <_ZN12_GLOBAL__N_18warp_sumEf+0x15>
			ea1: R_X86_64_PLT32	exit-0x4
     ea5:	0f 05                	syscall
)");
  REQUIRE(functions.size() == 2);
  CHECK(functions[0].name == "_ZN12_GLOBAL__N_112launch_scaleEPKfPflfP11CUstream_st");
  CHECK(functions[0].references == std::vector<std::string>{"__cudaPushCallConfiguration"});
  CHECK(functions[0].system_calls == std::vector<std::string>{"syscall", "int    $0x80"});
  CHECK(functions[1].references == std::vector<std::string>{"exit"});
  CHECK(functions[1].instructions.at(1) == "movl   $0x1,0xc(%rsp)");  // raw bytes dropped
  CHECK(functions[1].system_calls == std::vector<std::string>{"syscall"});
}

TEST_CASE("objdump -r gives every section's relocations", "[grader][static_check]") {
  const auto relocations = parse_relocations(R"(
RELOCATION RECORDS FOR [.text]:
OFFSET           TYPE              VALUE
0000000000000008 R_X86_64_PLT32    __cudaUnregisterFatBinary-0x0000000000000004

RELOCATION RECORDS FOR [.data.rel]:
OFFSET           TYPE              VALUE
0000000000000000 R_X86_64_64       _ZN7harness15implementationsB5cxx11Ev
)");
  REQUIRE(relocations.size() == 2);
  CHECK(relocations[0].section == ".text");
  CHECK(relocations[0].target == "__cudaUnregisterFatBinary");
  CHECK(relocations[1].section == ".data.rel");
  CHECK(relocations[1].target == "_ZN7harness15implementationsB5cxx11Ev");
}

TEST_CASE("a dependency file gives its prerequisites in order, escapes undone", "[grader][static_check]") {
  const auto deps = parse_depfile(
      "student.ptx : /course/labs/01_coalescing/student.cu \\\n"
      "    /usr/include/stdc-predef.h /course/labs/01_coalescing/coalescing.hpp \\\n"
      "    /home/a\\ b/x.h /usr/include/stdc-predef.h\n"
      "/course/labs/01_coalescing/coalescing.hpp:\n");
  CHECK(deps == std::vector<std::string>{"/course/labs/01_coalescing/student.cu", "/usr/include/stdc-predef.h",
                                         "/course/labs/01_coalescing/coalescing.hpp", "/home/a b/x.h"});
}

TEST_CASE("PTX gives its functions and each instruction with the function it is in", "[grader][static_check]") {
  const auto ptx = parse_ptx(R"(
.version 9.0
.target sm_90
.extern .func  (.param .b32 func_retval0) vprintf
(
	.param .b64 vprintf_param_0
)
;
	// .globl	_Z1kPf
.visible .entry _Z1kPf(
	.param .u64 _Z1kPf_param_0
)
{
	.reg .pred 	%p<2>;
	mov.u32 	%r1, %tid.x;
	@%p1 bra 	$L__BB0_2;
$L__BB0_2:
	// begin inline asm
	{ mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%f1,%f2,%f3,%f4}, {%r1,%r2,%r3,%r4}, {%r5,%r6}, {%f1,%f2,%f3,%f4}; }
	// end inline asm
	ld.global.L2::evict_last.f32 	%f5, [%rd1];
	ret;
}
.func _ZN3cub6detail5helperEv()
{
	ret;
}
)");
  CHECK(ptx.functions == std::vector<std::string>{"vprintf", "_Z1kPf", "_ZN3cub6detail5helperEv"});
  std::vector<std::string> opcodes;
  for (const auto& i : ptx.instructions) opcodes.push_back(i.opcode);
  CHECK(opcodes == std::vector<std::string>{"mov.u32", "bra", "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32",
                                            "ld.global.L2::evict_last.f32", "ret", "ret"});
  CHECK(ptx.instructions[2].function == "_Z1kPf");
  CHECK(ptx.instructions[5].function == "_ZN3cub6detail5helperEv");
}

TEST_CASE("what a fair launcher file calls and defines is accepted", "[grader][static_check]") {
  const std::vector<Symbol> stub = {
      use("cudaGetLastError"),
      use("cudaMemsetAsync"),
      use("cudaGetDevice"),
      use("cudaDeviceGetAttribute"),
      use("__cudaRegisterFatBinary"),
      use("__cudaLaunchKernel"),
      use("__cudaPushCallConfiguration"),
      use("_ZN7harness10cuda_checkE9cudaErrorPKcS2_i"),
      use("_ZN7harness15implementationsB5cxx11Ev"),
      use("_ZN7harness4Impl3addENSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEESt3any"),
      use("_ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE9_M_createERmm"),
      use("_ZTVN10__cxxabiv117__class_type_infoE"),
      use("_Znwm"),
      use("_ZdlPvm"),
      use("__cxa_guard_acquire"),
      use("_Unwind_Resume"),
      use("memcpy"),
      use("atexit"),
      use("exit"),  // nvcc's host copies of __device__ functions: judged per function
      use("_ZTIv"),
      use("printf"),
      use("sqrtf"),
      strong("_ZN48_GLOBAL__N__be7456bf_10_student_cu_49ca27ee_936912launch_scaleEPKfPflfP11CUstream_st"),
      strong("_Z12scale_kernelPKfPfl"),
      strong("coalescing_kernel"),
      strong("counter", ".bss"),
      weak("_ZN7harness17LauncherRegistrarIPFvPKfPflfP11CUstream_stEEC1EPKcSA_S7_",
           ".text._ZN7harness17LauncherRegistrarIPFvPKfPflfP11CUstream_stEEC2EPKcSA_S7_"),
      weak("_ZN7harness4ImplC2ENSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE",
           ".text._ZN7harness4ImplC2ENSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE"),
      weak("_ZNSt3any17_Manager_internalIPFvPKfPflfP11CUstream_stEE9_S_manageENS_3_OpEPKS_PNS_4_ArgE",
           ".text._ZNSt3any17_Manager_internalIPFvPKfPflfP11CUstream_stEE9_S_manageENS_3_OpEPKS_PNS_4_ArgE"),
      weak("_ZTIN5lab0710HostMemoryE", ".data.rel.ro._ZTIN5lab0710HostMemoryE"),
      weak("_ZN5lab0315launch_warp_sumIN12_GLOBAL__N_13OpsEEEvPKfPfliiP11CUstream_st",
           ".text._ZN5lab0315launch_warp_sumIN12_GLOBAL__N_13OpsEEEvPKfPfliiP11CUstream_st"),
      weak("_ZnwmPv", ".text._ZnwmPv"),
      weak("DW.ref.__gxx_personality_v0", ".data.rel.local.DW.ref.__gxx_personality_v0"),
      local("_ZL24__sti____cudaRegisterAllv"),
      local("cudaEventElapsedTime")};
  CHECK(check_symbols(stub, lab01()).empty());
}

TEST_CASE("each family of refused calls is named by its rule", "[grader][static_check]") {
  const auto c = GENERATE(table<std::string, std::string>({
      {"cudaStreamCreate", "streams"},
      {"cudaStreamCreateWithPriority", "streams"},
      {"cudaLaunchHostFunc", "streams"},
      {"cudaEventCreateWithFlags", "events"},
      {"cudaEventElapsedTime", "events"},
      {"cudaStreamBeginCapture", "graphs"},
      {"cudaGraphLaunch", "graphs"},
      {"cudaCtxResetPersistingL2Cache", "l2_persistence"},
      {"cudaStreamSetAttribute", "l2_persistence"},
      {"cudaLaunchKernelExC", "launch_attributes"},
      {"cudaDeviceSetLimit", "device_config"},
      {"cudaDeviceSetCacheConfig", "device_config"},
      {"cudaSetDevice", "device_config"},
      {"cudaDeviceReset", "device_config"},
      {"cudaDeviceSynchronize", "synchronization"},
      {"cudaMemcpy", "synchronization"},
      {"cudaMallocManaged", "managed_memory"},
      {"cudaMallocHost", "pinned_memory"},
      {"cudaIpcGetMemHandle", "ipc"},
      {"cuCtxGetCurrent", "driver_api"},
      {"cudaGetDriverEntryPoint", "dynamic_loading"},
      {"dlopen", "dynamic_loading"},
      {"dlsym", "dynamic_loading"},
      {"open", "files"},
      {"fopen64", "files"},
      {"write", "files"},
      {"__open_2", "files"},
      {"_ZNSt14basic_ofstreamIcSt11char_traitsIcEEC1EPKcSt13_Ios_Openmode", "files"},
      {"_ZNSt10filesystem6removeERKNS_7__cxx114pathE", "files"},
      {"fork", "processes"},
      {"execve", "processes"},
      {"system", "processes"},
      {"popen", "processes"},
      {"_ZNSt6thread15_M_start_threadESt10unique_ptrINS_6_StateESt14default_deleteIS1_EEPFvvE", "processes"},
      {"_exit", "exit"},
      {"abort", "exit"},
      {"quick_exit", "exit"},
      {"__assert_fail", "exit"},
      {"kill", "signals"},
      {"signal", "signals"},
      {"sigaction", "signals"},
      {"prctl", "process_control"},
      {"ptrace", "process_control"},
      {"mmap", "memory_mapping"},
      {"mprotect", "memory_mapping"},
      {"syscall", "syscalls"},
      {"cublasSgemm_v2", "libraries"},
      {"_ZN3cub12DeviceReduce3SumEv", "libraries"},
      {"getenv", "allowlist"},
      {"nanosleep", "allowlist"},
      {"_ZN5lab047cub_sumEPKfPflP11CUstream_st", "other_implementations"},
      {"_ZN49_GLOBAL__N__69081bd9_11_solution_cu_6f13b7ab_538812launch_scaleEPKfPflfP11CUstream_st",
       "other_implementations"},
      {"_Z13someone_elsesv", "other_implementations"},
      {"_ZN7harness6medianESt6vectorIdSaIdEE", "harness"},
      {"_ZN7harness8CudaErrorC1E9cudaErrorPKcS3_i", "harness"},
  }));
  CAPTURE(std::get<0>(c));
  const auto findings = check_symbols({use(std::get<0>(c))}, lab01());
  REQUIRE(findings.size() == 1);
  CHECK(findings[0].rule == std::get<1>(c));
  CHECK_THAT(findings[0].what, ContainsSubstring("calls '") || ContainsSubstring("uses "));
}

TEST_CASE("a lab's manifest widens the allowlist, and only by what it names", "[grader][static_check]") {
  auto lab07 = lab01();
  lab07.lab_id = "07_streams";
  lab07.rules.allow_symbols = {"cudaStreamCreate*", "cudaEventRecord", "cudaMallocHost"};
  const std::vector<Symbol> calls = {use("cudaStreamCreateWithFlags"), use("cudaEventRecord"), use("cudaMallocHost"),
                                     use("cudaStreamSetAttribute"), use("cudaEventElapsedTime")};
  CHECK(rules(check_symbols(calls, lab07)) == Rules{"l2_persistence", "events"});
  CHECK(rules(check_symbols(calls, lab01())) ==
        Rules{"streams", "events", "pinned_memory", "l2_persistence", "events"});
}

TEST_CASE("definitions that would take the place of the runtime's, the C library's or the harness's are refused",
          "[grader][static_check]") {
  const auto c = GENERATE(table<std::string, bool, std::string, std::string>({
      {"cudaEventElapsedTime", false, ".text", "runtime_shadowing"},
      {"cudaStreamSynchronize", true, ".text", "runtime_shadowing"},  // __attribute__((weak))
      {"__cudaRegisterFunction", false, ".text", "runtime_shadowing"},
      {"cuLaunchKernel", false, ".text", "runtime_shadowing"},
      {"open", false, ".text", "runtime_shadowing"},
      {"write", false, ".text", "runtime_shadowing"},
      {"exit", false, ".text", "runtime_shadowing"},
      {"fork", false, ".text", "runtime_shadowing"},
      {"malloc", false, ".text", "runtime_shadowing"},
      {"getenv", false, ".text", "runtime_shadowing"},
      {"_Znwm", false, ".text", "runtime_shadowing"},
      {"_ZdlPv", false, ".text", "runtime_shadowing"},
      {"_ZNSt3any17_Manager_internalIPFvvEE9_S_manageENS_3_OpEPKS_PNS_4_ArgE", false, ".text", "runtime_shadowing"},
      {"_ZSt20__throw_length_errorPKc", true, ".text", "runtime_shadowing"},  // weak, but no COMDAT copy
      {"_ZN7harness6medianESt6vectorIdSaIdEE", false, ".text", "harness_shadowing"},
      {"_ZN7harness6medianESt6vectorIdSaIdEE", true, ".text", "harness_shadowing"},
      {"_ZN7harness10cuda_checkE9cudaErrorPKcS2_i", true, ".text._ZN7harness10cuda_checkE9cudaErrorPKcS2_i",
       "harness_shadowing"},
      {"_ZTVN7harness15MissingLauncherE", true, ".data.rel.ro._ZTVN7harness15MissingLauncherE", "harness_shadowing"},
      {"_ZN5lab063cpu9transposeEv", false, ".text", "harness_shadowing"},
      {"_ZNK7harness4Impl8launcherIPFvPKfPflfP11CUstream_stEEET_St17basic_string_viewIcSt11char_traitsIcEE", true,
       ".text._ZNK7harness4Impl8launcherIPFvPKfPflfP11CUstream_stEEET_St17basic_string_viewIcSt11char_traitsIcEE",
       "other_implementations"},
      {"_ZN49_GLOBAL__N__69081bd9_11_solution_cu_6f13b7ab_538812launch_scaleEPKfPflfP11CUstream_st", false, ".text",
       "other_implementations"},
      {"_ZN3cub6detail11EmptyKernelIvEEvv", true, ".text._ZN3cub6detail11EmptyKernelIvEEvv", "libraries"},
  }));
  CAPTURE(std::get<0>(c), std::get<1>(c));
  const Symbol s{std::get<0>(c), std::get<2>(c), true, std::get<1>(c)};
  const auto findings = check_symbols({s}, lab01());
  REQUIRE(findings.size() == 1);
  CHECK(findings[0].rule == std::get<3>(c));
  CHECK_THAT(findings[0].what, ContainsSubstring("defines '") || ContainsSubstring("uses "));
}

TEST_CASE("a library is reported once, however many of its symbols the file holds", "[grader][static_check]") {
  const auto findings =
      check_symbols({weak("_ZN6thrust3seqE", ".bss._ZN6thrust3seqE"), use("_ZN6thrust6deviceE"),
                     weak("_ZN3cub6detail11EmptyKernelIvEEvv", ".text._ZN3cub6detail11EmptyKernelIvEEvv")},
                    lab01());
  CHECK(rules(findings) == Rules{"libraries", "libraries"});
  CHECK_THAT(findings[0].what, ContainsSubstring("uses thrust"));
  CHECK_THAT(findings[1].what, ContainsSubstring("uses cub"));
}

TEST_CASE("a C library's refusal names the library, once per library", "[grader][static_check]") {
  const auto findings = check_symbols(
      {use("cublasCreate_v2"), use("cublasSetStream_v2"), use("cufftExecC2C"), use("cudnnCreate")}, lab01());
  REQUIRE(rules(findings) == Rules{"libraries", "libraries", "libraries"});
  CHECK(findings[0].what == "uses cublas (calls 'cublasCreate_v2')");
  CHECK(findings[1].what == "uses cufft (calls 'cufftExecC2C')");
  CHECK(findings[2].what == "uses cudnn (calls 'cudnnCreate')");
  CHECK_THAT(format_finding(findings[0], lab01(), "student.cu"),
             ContainsSubstring("student.cu: refused: uses cublas (calls 'cublasCreate_v2') (rule 'libraries'"));
}

TEST_CASE("host code: system-call instructions, the registry outside REGISTER_LAUNCHER, and real exits are refused",
          "[grader][static_check]") {
  const HostFunction registrar{"_ZN7harness17LauncherRegistrarIPFvPKfPflfP11CUstream_stEEC2EPKcSA_S7_.cold",
                               {"_ZN7harness15implementationsB5cxx11Ev",
                                "_ZN7harness4Impl3addENSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEESt3any"},
                               {},
                               {}};
  const HostFunction device_copy{"_ZN12_GLOBAL__N_18warp_sumEf",
                                 {"exit"},
                                 {"sub    $0x18,%rsp", "movl   $0x1,0xc(%rsp)", "mov    0xc(%rsp),%edi", "call   ea5"},
                                 {}};
  const HostFunction launcher{"_ZN12_GLOBAL__N_112launch_scaleEPKfPflfP11CUstream_st",
                              {"cudaGetLastError", "_ZN7harness15implementationsB5cxx11Ev"},
                              {},
                              {}};
  const HostFunction exit0{"_ZN12_GLOBAL__N_14quitEv", {"exit"}, {"xor    %edi,%edi", "call   10"}, {}};
  const HostFunction raw{"_ZN12_GLOBAL__N_13rawEv", {}, {"syscall"}, {"syscall"}};
  CHECK(check_host_code({registrar, device_copy}, lab01()).empty());
  const auto findings = check_host_code({launcher, exit0, raw}, lab01());
  CHECK(rules(findings) == Rules{"harness", "exit", "syscalls"});
  CHECK(findings[0].what ==
        "uses the launcher registry 'harness::implementations' in '(anonymous namespace)::launch_scale'");
  CHECK(findings[2].what == "executes 'syscall' in '(anonymous namespace)::raw'");
}

TEST_CASE("data that points at the registry or at exit is refused; code is left to the host-code rule",
          "[grader][static_check]") {
  const auto findings = check_relocations({{".text", "_ZN7harness15implementationsB5cxx11Ev"},
                                           {".data.rel", "_ZN7harness15implementationsB5cxx11Ev"},
                                           {".data.rel.ro", "exit"},
                                           {".init_array", "_ZL24__sti____cudaRegisterAllv"}},
                                          lab01());
  CHECK(rules(findings) == Rules{"harness", "exit"});
}

TEST_CASE("code that would run before the runner's setup is refused: early sections and indirect functions",
          "[grader][static_check]") {
  // objdump -h of an object with a prioritized constructor, an .init fragment and a .preinit_array.
  const auto sections = parse_sections(R"(
student.o:     file format elf64-x86-64

Sections:
Idx Name          Size      VMA               LMA               File off  Algn
  0 .text         00000024  0000000000000000  0000000000000000  00000040  2**4
                  CONTENTS, ALLOC, LOAD, READONLY, CODE
  3 .init_array.00101 00000008  0000000000000000  0000000000000000  00000060  2**3
  4 .init         00000001  0000000000000000  0000000000000000  00000068  2**0
  5 .preinit_array 00000008  0000000000000000  0000000000000000  00000070  2**3
  6 .init_array   00000008  0000000000000000  0000000000000000  00000078  2**3
)");
  REQUIRE(sections.size() == 5);
  CHECK(sections[1].name == ".init_array.00101");
  const auto findings = check_startup(sections, {});
  CHECK(rules(findings) == Rules{"startup", "startup", "startup"});
  CHECK_THAT(findings[0].what, ContainsSubstring(".init_array.00101"));
  // The default .init_array (what nvcc and every static initializer use) runs after the runner's setup: fair.
  CHECK(check_startup(parse_sections("  6 .init_array   00000008  0000000000000000  0000000000000000  00000078  2**3\n"
                                     "  7 .ctors        00000008  0000000000000000  0000000000000000  00000080  2**3"),
                      {})
            .empty());
  // An indirect function (objdump -t's flag i): its resolver runs while the dynamic loader relocates.
  const auto symbols = parse_symbol_table(
      "000000000000000b g   i   .text\t000000000000000d cudaMalloc\n"
      "0000000000000018 g     F .text\t0000000000000007 launch_scale\n");
  REQUIRE(symbols.size() == 2);
  CHECK(symbols[0].indirect);
  CHECK_FALSE(symbols[1].indirect);
  CHECK(rules(check_startup({}, symbols)) == Rules{"startup"});
}

TEST_CASE("headers: libraries, copies of the course's headers and a missing launcher.hpp are refused",
          "[grader][static_check]") {
  const std::vector<std::string> fair = {"/course/labs/01_coalescing/student.cu",
                                         "/usr/local/cuda/include/cuda_runtime.h",
                                         "/course/labs/01_coalescing/coalescing.hpp",
                                         "/course/build/contract/01_coalescing/harness/launcher.hpp",
                                         "/course/build/contract/01_coalescing/harness/cuda_check.hpp",
                                         "/usr/local/cuda/include/cooperative_groups.h",
                                         "/usr/local/cuda/include/cccl/cuda/std/__algorithm/min.h",
                                         "/usr/include/c++/12/numeric"};
  CHECK(check_headers(fair, lab01()).empty());

  auto with = [&](std::vector<std::string> more) {
    auto deps = fair;
    deps.insert(deps.end(), more.begin(), more.end());
    return deps;
  };
  const auto cub = check_headers(
      with({"/usr/local/cuda/include/cccl/cub/cub.cuh", "/usr/local/cuda/include/cccl/cub/device/device_reduce.cuh"}),
      lab01());
  REQUIRE(rules(cub) == Rules{"libraries"});  // one finding per library: the header the file included
  CHECK(cub[0].what == "includes '/usr/local/cuda/include/cccl/cub/cub.cuh'");
  for (const std::string header :
       {"/usr/local/cuda/include/cccl/thrust/reduce.h", "/usr/local/cuda/include/cublas_v2.h",
        "/usr/local/cuda/include/cublasLt.h", "/usr/local/cuda/include/mma.h", "/usr/local/cuda/include/crt/mma.hpp",
        "/usr/local/cuda/include/cooperative_groups/reduce.h",
        "/usr/local/cuda/include/cooperative_groups/details/coalesced_scan.h",
        "/usr/local/cuda/include/cccl/cuda/std/__numeric/reduce.h"}) {
    CAPTURE(header);
    CHECK(rules(check_headers(with({header}), lab01())) == Rules{"libraries"});
  }

  auto allowed = lab01();
  allowed.rules.allow_headers = {"cub/*"};
  CHECK(check_headers(with({"/usr/local/cuda/include/cccl/cub/cub.cuh"}), allowed).empty());

  CHECK(rules(check_headers(with({"/home/me/harness/timing.hpp"}), lab01())) ==
        Rules{"harness_shadowing", "includes"});
  CHECK(rules(check_headers(with({"/home/me/coalescing.hpp"}), lab01())) == Rules{"harness_shadowing", "includes"});
  auto no_launcher = fair;
  no_launcher.erase(
      std::find(no_launcher.begin(), no_launcher.end(), "/course/build/contract/01_coalescing/harness/launcher.hpp"));
  no_launcher.push_back("/home/me/harness/launcher.hpp");
  CHECK(rules(check_headers(no_launcher, lab01())) == Rules{"harness_shadowing", "includes", "harness"});
}

TEST_CASE("a compile may read its file, its lab's contract and the compiler's headers, nothing else",
          "[grader][static_check]") {
  const std::vector<std::string> fair = {"/course/labs/01_coalescing/student.cu",
                                         "/course/build/contract/01_coalescing/coalescing.hpp",
                                         "/course/build/contract/01_coalescing/harness/launcher.hpp",
                                         "/course/build/contract/01_coalescing/harness/cuda_check.hpp",
                                         "/usr/include/c++/12/vector"};
  CHECK(check_headers(fair, lab01()).empty());
  const auto with = [&](const std::string& more) {
    auto deps = fair;
    deps.push_back(more);
    return check_headers(deps, lab01());
  };
  // The reference solution through the lab's own folder, the lab's sources beside student.cu, a classmate's file, a
  // header of the lab outside its contract, the harness's own copy of a contract header.
  for (const std::string dep : {"/course/solutions/01_coalescing/solution.cu", "/course/labs/01_coalescing/exercises.cpp",
                                "/srv/class/bob/lab1.cu", "/course/labs/01_coalescing/cpu_reference.hpp"}) {
    CAPTURE(dep);
    const auto findings = with(dep);
    REQUIRE(rules(findings) == Rules{"includes"});
    CHECK_THAT(findings[0].what, ContainsSubstring(dep));
  }
  CHECK(rules(with("/course/harness/common/include/harness/launcher.hpp")) == Rules{"harness_shadowing", "includes"});
  // A file the course ships with an implementation of its own (lab 04's baseline and its solution.cu).
  auto baseline = lab01();
  baseline.course_files = {"/course/solutions/01_coalescing/solution.cu"};
  CHECK(check_headers([&] {
          auto deps = fair;
          deps.push_back("/course/solutions/01_coalescing/solution.cu");
          return deps;
        }(),
                      baseline)
            .empty());
}

TEST_CASE("the compiler's own include folders are read from its search list", "[grader][static_check]") {
  const auto dirs = parse_search_list(R"(#include "..." search starts here:
#include <...> search starts here:
 /usr/local/cuda/bin/../targets/x86_64-linux/include
 /usr/include/c++/12
 /usr/include
End of search list.
)");
  CHECK(dirs == std::vector<std::string>{"/usr/local/cuda/bin/../targets/x86_64-linux/include", "/usr/include/c++/12",
                                         "/usr/include"});
}

TEST_CASE("device code: tensor-core and L2-persistence instructions and library kernels are refused",
          "[grader][static_check]") {
  PtxCode fair;
  fair.functions = {"_Z6kernelPf", "vprintf"};
  fair.instructions = {{"ld.global.nc.v4.f32", "_Z6kernelPf"},
                       {"shfl.sync.down.b32", "_Z6kernelPf"},
                       {"ld.global.L2::128B.f32", "_Z6kernelPf"},
                       {"fma.rn.f32", "_Z6kernelPf"}};
  CHECK(check_device_code(fair, lab01()).empty());

  PtxCode hostile;
  hostile.functions = {"_Z6kernelPf", "_ZN3cub6detail11EmptyKernelIvEEvv"};
  hostile.instructions = {{"mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32", "_Z6kernelPf"},
                          {"mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32", "_Z6kernelPf"},
                          {"wmma.load.a.sync.aligned.row.m16n16k8.tf32", "_Z7kernel2v"},
                          {"createpolicy.fractional.L2::evict_last.b64", "_Z6kernelPf"},
                          {"ld.global.L2::evict_last.f32", "_Z7kernel2v"}};
  const auto findings = check_device_code(hostile, lab01());
  CHECK(rules(findings) == Rules{"tensor_cores", "tensor_cores", "l2_persistence", "l2_persistence", "libraries"});
  CHECK(findings[0].what == "executes 'mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32' in 'kernel'");

  auto allowed = lab01();
  allowed.rules.allow_instructions = {"mma.*", "wmma.*"};
  CHECK(rules(check_device_code(hostile, allowed)) == Rules{"l2_persistence", "l2_persistence", "libraries"});
}

TEST_CASE("paths under /proc, /dev and /sys in the object are refused", "[grader][static_check]") {
  using namespace std::string_literals;
  const auto bytes =
      "\x7f"
      "ELF\0\0--results\0/proc/self/cmdline\0x\0"s;
  const auto findings = check_strings(bytes, lab01());
  REQUIRE(rules(findings) == Rules{"files"});
  CHECK(findings[0].what == "contains the path '/proc/self/cmdline'");
  CHECK(check_strings("\x7f"
                      "ELF scale_kernel launch_dot"s,
                      lab01())
            .empty());
}

TEST_CASE("a finding reads as one line that names the file, what it does, the rule and where to read about it",
          "[grader][static_check]") {
  CHECK(format_finding({"streams", "calls 'cudaStreamCreate'"}, lab01(), "student.cu") ==
        "student.cu: refused: calls 'cudaStreamCreate' (rule 'streams': lab 01 allows no streams of your own: the "
        "harness times the stream it passes to your launcher; see labs/01_coalescing/README.md#rules)");
  for (const std::string rule : {"allowlist",
                                 "streams",
                                 "events",
                                 "graphs",
                                 "l2_persistence",
                                 "launch_attributes",
                                 "device_config",
                                 "synchronization",
                                 "managed_memory",
                                 "pinned_memory",
                                 "ipc",
                                 "driver_api",
                                 "dynamic_loading",
                                 "files",
                                 "processes",
                                 "exit",
                                 "signals",
                                 "process_control",
                                 "memory_mapping",
                                 "syscalls",
                                 "runtime_shadowing",
                                 "harness_shadowing",
                                 "harness",
                                 "other_implementations",
                                 "libraries",
                                 "tensor_cores"}) {
    CAPTURE(rule);
    CHECK_FALSE(rule_reason(rule).empty());
  }
}

TEST_CASE("every lab's manifest parses, and only lab 07 widens the default", "[grader][static_check]") {
  for (const auto& entry : std::filesystem::directory_iterator(COURSE_LABS_DIR)) {
    if (!std::filesystem::exists(entry.path() / "manifest.json")) continue;
    CAPTURE(entry.path().string());
    const auto m = grader::load_manifest(entry.path() / "manifest.json");
    const bool streams_lab = entry.path().filename() == "07_streams";
    CHECK(m.rules.allow_symbols.empty() != streams_lab);
    CHECK(m.rules.allow_headers.empty());
    CHECK(m.rules.allow_instructions.empty());
  }
}
