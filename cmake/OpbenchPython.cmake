# The Python interpreter the reports run to draw their charts (scripts/plots/plot_report.py): the first
# of python3 on PATH and /usr/bin/python3 that can import matplotlib. The python3 first on PATH may be a
# virtual environment or pyenv without it, while Debian's python3-matplotlib (which scripts/common.sh
# installs) lives in /usr/bin/python3. Without one, "python3" is kept and the reports say that charts
# were skipped and why. -DOPBENCH_PYTHON=/path/to/python chooses one.
set(OPBENCH_PYTHON "" CACHE FILEPATH "Python interpreter (with matplotlib) that draws the report charts")
if(NOT OPBENCH_PYTHON)
  find_program(_opbench_path_python3 NAMES python3 NO_CACHE)
  foreach(_py ${_opbench_path_python3} /usr/bin/python3)
    if(EXISTS "${_py}")
      # The interpreter's own path, not a launcher's (a pyenv shim picks its python by directory).
      execute_process(COMMAND "${_py}" -c "import sys, matplotlib; print(sys.executable)" RESULT_VARIABLE _rc
                      OUTPUT_VARIABLE _exe OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
      if(_rc EQUAL 0 AND _exe)
        set(OPBENCH_PYTHON "${_exe}" CACHE FILEPATH "Python interpreter (with matplotlib) that draws the report charts" FORCE)
        break()
      endif()
    endif()
  endforeach()
endif()
if(OPBENCH_PYTHON)
  set(OPBENCH_CHART_PYTHON "${OPBENCH_PYTHON}")
  message(STATUS "opbench: report charts drawn with ${OPBENCH_PYTHON}")
else()
  set(OPBENCH_CHART_PYTHON "python3")
  message(STATUS "opbench: no python3 with matplotlib found: reports will say that charts were skipped "
                 "(install python3-matplotlib, or pass -DOPBENCH_PYTHON=...)")
endif()
