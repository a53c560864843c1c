# scripts/class_scaling.py: a class's scaling from its students' grading walls, bounded by two standard errors. One GPU
# at 50 and 52 s a student, two GPUs at 52, 54, 52 and 54 s a worker (a student with no grading wall left out): 26.5 s
# a student on the host, 2 x 51 / 53 = 1.92x, its bounds 1.84 to 2.01. Against one GPU graded for a single student
# (51 s), the same scaling with no bounds: one wall has no spread. One GPU held to half the CPUs (60 s a student, listed
# first) is not what the two GPUs are measured against: the one graded on the most CPUs is. A second class on two GPUs
# (another placement: 50, 52, 50, 52 s) against the first: 51 / 53 = 0.962 of its mean wall, 0.932 to 0.992; one GPU on
# every CPU against one GPU held to half (both one GPU: compared too): 51 / 60 = 0.850, 0.817 to 0.883.
# cmake -DWORK=DIR -DSCRIPT=scripts/class_scaling.py -P class_scaling_test.cmake
file(MAKE_DIRECTORY ${WORK})
function(class name walls_and_gpus)  # "WALL:GPU;..." [CPUS: the list every student was graded on]
  set(cpus "0-31")
  if(ARGC GREATER 2)
    set(cpus "${ARGV2}")
  endif()
  set(students "")
  foreach(pair ${walls_and_gpus})
    string(REPLACE ":" ";" pair "${pair}")
    list(GET pair 0 wall)
    list(GET pair 1 gpu)
    string(APPEND students "{\"student\": \"s${wall}\", \"grading\": {\"gpu\": \"${gpu}\", \"wall_s\": ${wall}, "
                           "\"cpus\": \"${cpus}\"}},")
  endforeach()
  file(WRITE ${WORK}/${name}.json "{\"students\": [${students} {\"student\": \"unbuilt\", \"grading\": null}]}")
endfunction()
class(g1 "50:0;52:0")
class(g1single "51:0")
class(g1half "60:0;60:0" "0-15")
class(g2 "52:0;54:1;52:1;54:0")
class(g2shared "50:0;52:1;50:1;52:0")
function(expect_lines)
  execute_process(COMMAND python3 ${SCRIPT} ${ARGN} OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "class_scaling.py failed (${rc}): ${out}${err}")
  endif()
  foreach(expected ${lines})
    string(FIND "${out}" "${expected}" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "expected '${expected}' in:\n${out}")
    endif()
  endforeach()
endfunction()
set(g2_line "g2.json: 2 GPU(s), 4 student(s): 53.0 s a student a worker (walls 52.0 to 54.0), ")
string(APPEND g2_line "26.5 s a student on the host")
set(g1_line "g1.json: 1 GPU(s), 2 student(s): 51.0 s a student a worker (walls 50.0 to 52.0), ")
string(APPEND g1_line "51.0 s a student on the host")
set(lines "${g1_line}\n"
          "${g2_line}, 1.92x ${WORK}/g1.json (1.84 to 2.01)\n")
expect_lines(${WORK}/g1.json ${WORK}/g2.json)
set(lines "${g2_line}, 1.92x ${WORK}/g1single.json\n")
expect_lines(${WORK}/g1single.json ${WORK}/g2.json)
string(CONCAT one_gpu_line "${WORK}/g1.json against ${WORK}/g1half.json, both on 1 GPU(s): "
                          "a worker's mean wall 0.850 of the other's (0.817 to 0.883)\n")
set(lines "${g2_line}, 1.92x ${WORK}/g1.json (1.84 to 2.01)\n" "${one_gpu_line}")
expect_lines(${WORK}/g1half.json ${WORK}/g1.json ${WORK}/g2.json)
string(CONCAT lines "${WORK}/g2shared.json against ${WORK}/g2.json, both on 2 GPU(s): "
                   "a worker's mean wall 0.962 of the other's (0.932 to 0.992)\n")
expect_lines(${WORK}/g1.json ${WORK}/g2.json ${WORK}/g2shared.json)
