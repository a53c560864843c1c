# Lab 07's arrays live in host memory (pinned, or from the student's allocator), which a runner process cannot share
# with the lab binary yet: its implementations are linked into the lab binary itself (harness/include/harness/runner.hpp).
set_property(GLOBAL PROPERTY COURSE_IN_PROCESS_07_streams TRUE)
