# scripts/class_phases.py sums a timed run's phases into the run and a first exercise's generate made before its turn
# (`generate_ahead`, the check run's seconds) apart: two students, one exercise each, a timed run of 2.0 s whose
# phases take 1.5 s (generate 0.25 of them, its device part 0.2 inside it), generate_ahead 0.75 and 0.25 s.
# cmake -DWORK=DIR -DSCRIPT=scripts/class_phases.py -P class_phases_test.cmake
file(MAKE_DIRECTORY ${WORK})
file(WRITE ${WORK}/class.json [=[
{"students": [
 {"results": {"runs": [{"labs": [{"lab": 1, "wall_s": 3.0, "exercises": [{"name": "scale", "time_s": 2.0,
  "phases_s": {"context": 0.25, "generate": 0.25, "generate_device": 0.2, "generate_ahead": 0.75,
               "timing": 1.0}}]}]}]}},
 {"results": {"runs": [{"labs": [{"lab": 1, "wall_s": 3.0, "exercises": [{"name": "scale", "time_s": 2.0,
  "phases_s": {"context": 0.25, "generate": 0.25, "generate_device": 0.2, "generate_ahead": 0.25,
               "timing": 1.0}}]}]}]}}
]}
]=])
execute_process(COMMAND python3 ${SCRIPT} ${WORK}/class.json
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "class_phases.py failed (${rc}): ${out}${err}")
endif()
foreach(expected "  timed runs                 2.00\n" "  generate ahead             0.50\n"
                 "  phase generate             0.25\n" "  timed, outside phases      0.50\n")
  string(FIND "${out}" "${expected}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "expected '${expected}' in:\n${out}")
  endif()
endforeach()
string(FIND "${out}" "phase generate_ahead" inside)
if(NOT inside EQUAL -1)
  message(FATAL_ERROR "generate_ahead counted as a phase of the timed runs:\n${out}")
endif()
