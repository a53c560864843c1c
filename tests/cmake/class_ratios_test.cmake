# scripts/class_ratios.py --per-lab counts an exercise by what grades it: lab 07's pipeline, graded by overlap in its
# manifest, by the reference's overlap over the student's (here equal: 1.000), not by its time (here 1.050, which
# would be flagged); lab 01's scale by its time (1.010). Each lab's smallest ratio too, by the same measure: a second
# student whose pipeline overlapped more than the reference (0.947) and whose scale ran faster (0.990).
# cmake -DWORK=DIR -DSCRIPT=scripts/class_ratios.py -P class_ratios_test.cmake
file(MAKE_DIRECTORY ${WORK})
file(WRITE ${WORK}/class.json [=[
{"students": [{"results": {"runs": [{"labs": [
  {"lab": 1, "exercises": [{"name": "scale", "median_ms": {"student": 1.01, "reference": 1.0},
                            "event_median_ms": {"student": 1.0, "reference": 1.0}, "timed_runs": 1}]},
  {"lab": 7, "exercises": [{"name": "pipeline", "median_ms": {"student": 5.25, "reference": 5.0},
                            "metrics": {"overlap_student": 0.9, "overlap_reference": 0.9}, "timed_runs": 1}]}
]}]}},
 {"results": {"runs": [{"labs": [
  {"lab": 1, "exercises": [{"name": "scale", "median_ms": {"student": 0.99, "reference": 1.0}, "timed_runs": 1}]},
  {"lab": 7, "exercises": [{"name": "pipeline", "median_ms": {"student": 4.5, "reference": 5.0},
                            "metrics": {"overlap_student": 0.95, "overlap_reference": 0.9}, "timed_runs": 1}]}
]}]}}]}
]=])
execute_process(COMMAND python3 ${SCRIPT} ${WORK}/class.json 0 --per-lab
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "class_ratios.py failed (${rc}): ${out}${err}")
endif()
string(CONCAT lab7 "lab7: at most 1.000 (pipeline by overlap: 0.900 against the reference's 0.900), "
                   "at least 0.947 (pipeline)\n")
# The spread counts the two ratios graded by time (ln 1.01 and ln 0.99: 1.41%), not the pipeline's by overlap.
string(CONCAT spread "spread: 2 ratios graded by time, standard deviation of their logarithm 1.41%, 0 above 1.01, "
                     "0 above 1.02\n")
foreach(expected "lab1: at most 1.010 (scale, events 1.000), at least 0.990 (scale)\n" "${lab7}" "${spread}")
  string(FIND "${out}" "${expected}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "expected '${expected}' in:\n${out}")
  endif()
endforeach()
string(FIND "${out}" "ABOVE" above)
if(NOT above EQUAL -1)
  message(FATAL_ERROR "a ratio flagged, though every graded one is within 1.02:\n${out}")
endif()
