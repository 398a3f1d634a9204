# Finds cuDNN and defines the imported target CUDNN::cudnn.
# Search order: CUDNN_ROOT, the cuDNN inside the PyTorch LibTorch came from, then the CUDA toolkit and
# the system. PyTorch's wheel ships only libcudnn.so.9, so where the system also has a libcudnn.so
# that one is linked (and loaded by LibTorch too: one libcudnn in the process); the header may then
# come from PyTorch's newer 9.x (same API within a major version). Set CUDNN_ROOT to choose.
set(_cudnn_hints)
if(CUDNN_ROOT)
  list(APPEND _cudnn_hints ${CUDNN_ROOT})
endif()
if(TORCH_INSTALL_PREFIX)
  # <site-packages>/torch -> <site-packages>/nvidia/cudnn
  get_filename_component(_site "${TORCH_INSTALL_PREFIX}/.." ABSOLUTE)
  list(APPEND _cudnn_hints "${_site}/nvidia/cudnn")
endif()
list(APPEND _cudnn_hints ${CUDAToolkit_LIBRARY_ROOT} /usr/local/cuda /usr)

find_path(CUDNN_INCLUDE_DIR cudnn.h HINTS ${_cudnn_hints} ${CUDAToolkit_INCLUDE_DIRS}
          PATH_SUFFIXES include include/x86_64-linux-gnu)
find_library(CUDNN_LIBRARY NAMES cudnn libcudnn.so.9 HINTS ${_cudnn_hints}
             PATH_SUFFIXES lib lib64 lib/x86_64-linux-gnu)

set(CUDNN_VERSION "")
if(CUDNN_INCLUDE_DIR)
  foreach(_h cudnn_version.h cudnn.h)
    if(EXISTS "${CUDNN_INCLUDE_DIR}/${_h}")
      file(STRINGS "${CUDNN_INCLUDE_DIR}/${_h}" _lines REGEX "#define CUDNN_(MAJOR|MINOR|PATCHLEVEL) ")
      foreach(_l ${_lines})
        if(_l MATCHES "#define CUDNN_(MAJOR|MINOR|PATCHLEVEL) +([0-9]+)")
          set(_cudnn_${CMAKE_MATCH_1} ${CMAKE_MATCH_2})
        endif()
      endforeach()
    endif()
  endforeach()
  if(DEFINED _cudnn_MAJOR)
    set(CUDNN_VERSION "${_cudnn_MAJOR}.${_cudnn_MINOR}.${_cudnn_PATCHLEVEL}")
  endif()
endif()

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(CUDNN REQUIRED_VARS CUDNN_LIBRARY CUDNN_INCLUDE_DIR VERSION_VAR CUDNN_VERSION)

if(CUDNN_FOUND AND NOT TARGET CUDNN::cudnn)
  add_library(CUDNN::cudnn UNKNOWN IMPORTED)
  set_target_properties(CUDNN::cudnn PROPERTIES IMPORTED_LOCATION "${CUDNN_LIBRARY}"
                        INTERFACE_INCLUDE_DIRECTORIES "${CUDNN_INCLUDE_DIR}")
endif()
