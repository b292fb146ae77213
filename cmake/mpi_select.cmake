# Which MPI library mpibex is built against, and what the tests and the
# launcher need to know about it. Included from CMakeLists.txt; runs
# find_package(MPI) and sets MBX_MPI_FLAVOUR (mpich, openmpi or other).
#
# Debian installs MPICH and Open MPI side by side: suffixed wrappers
# (mpicc.mpich, mpiexec.mpich, mpicc.openmpi, mpiexec.openmpi) and plain
# names (mpicc, mpiexec) that follow update-alternatives, where Open MPI
# outranks MPICH as soon as both are installed. MBX_MPI picks by suffixed
# name, so a build never changes with the alternatives:
#   auto     MPICH's wrappers when they are installed, else FindMPI's search
#   mpich    mpicc.mpich and mpiexec.mpich (an error when missing)
#   openmpi  mpicc.openmpi and mpiexec.openmpi (an error when missing)
#   system   FindMPI's search (mpicc and mpiexec on PATH, and so on)
# FindMPI's own MPI_C_COMPILER and MPIEXEC_EXECUTABLE, when given, win.

set(MBX_MPI auto CACHE STRING "MPI to build against: auto, mpich, openmpi or system")
set_property(CACHE MBX_MPI PROPERTY STRINGS auto mpich openmpi system)
if(NOT MBX_MPI MATCHES "^(auto|mpich|openmpi|system)$")
  message(FATAL_ERROR "MBX_MPI: '${MBX_MPI}' is not one of auto, mpich, openmpi, system")
endif()
# FindMPI caches what it found; another MPI needs a fresh build directory.
if(DEFINED MBX_MPI_CONFIGURED AND NOT MBX_MPI_CONFIGURED STREQUAL MBX_MPI)
  message(FATAL_ERROR "MBX_MPI: this build directory was configured with "
          "MBX_MPI=${MBX_MPI_CONFIGURED}; use a new build directory for MBX_MPI=${MBX_MPI}")
endif()
set(MBX_MPI_CONFIGURED ${MBX_MPI} CACHE INTERNAL "MBX_MPI of the first configure")

set(_mbx_want ${MBX_MPI})
if(MBX_MPI STREQUAL "auto")
  find_program(MBX_MPICC_MPICH NAMES mpicc.mpich)
  mark_as_advanced(MBX_MPICC_MPICH)
  set(_mbx_want system)
  if(MBX_MPICC_MPICH)
    set(_mbx_want mpich)
  endif()
endif()
if(NOT _mbx_want STREQUAL "system")
  find_program(MBX_MPICC_${_mbx_want} NAMES mpicc.${_mbx_want})
  find_program(MBX_MPIEXEC_${_mbx_want} NAMES mpiexec.${_mbx_want})
  mark_as_advanced(MBX_MPICC_${_mbx_want} MBX_MPIEXEC_${_mbx_want})
  if(NOT MBX_MPICC_${_mbx_want} OR NOT MBX_MPIEXEC_${_mbx_want})
    message(FATAL_ERROR "MBX_MPI=${MBX_MPI}: mpicc.${_mbx_want} or mpiexec.${_mbx_want} not found "
            "(Debian: apt-get install lib${_mbx_want}-dev ${_mbx_want}; for another layout use "
            "-DMBX_MPI=system or FindMPI's MPI_C_COMPILER and MPIEXEC_EXECUTABLE)")
  endif()
  if(NOT MPI_C_COMPILER)
    set(MPI_C_COMPILER ${MBX_MPICC_${_mbx_want}} CACHE FILEPATH "MPI C compiler wrapper")
  endif()
  if(NOT MPIEXEC_EXECUTABLE)
    set(MPIEXEC_EXECUTABLE ${MBX_MPIEXEC_${_mbx_want}} CACHE FILEPATH "MPI launcher")
  endif()
endif()

find_package(MPI REQUIRED COMPONENTS C)

# The library, from its header: Open MPI defines OPEN_MPI, MPICH and its
# derivatives (Intel MPI, MVAPICH) MPICH_VERSION.
include(CheckSymbolExists)
set(CMAKE_REQUIRED_LIBRARIES MPI::MPI_C)
set(CMAKE_REQUIRED_QUIET ON)
check_symbol_exists(OPEN_MPI mpi.h MBX_HAVE_OPEN_MPI)
check_symbol_exists(MPICH_VERSION mpi.h MBX_HAVE_MPICH)
unset(CMAKE_REQUIRED_LIBRARIES)
unset(CMAKE_REQUIRED_QUIET)
if(MBX_HAVE_OPEN_MPI)
  set(MBX_MPI_FLAVOUR openmpi)
elseif(MBX_HAVE_MPICH)
  set(MBX_MPI_FLAVOUR mpich)
else()
  set(MBX_MPI_FLAVOUR other)
endif()
if(MBX_MPI MATCHES "^(mpich|openmpi)$" AND NOT MBX_MPI STREQUAL MBX_MPI_FLAVOUR)
  message(FATAL_ERROR "MBX_MPI=${MBX_MPI}, but ${MPI_C_COMPILER} builds against "
          "${MBX_MPI_FLAVOUR}")
endif()

# The launcher must be the library's own: ranks of an MPICH build started by
# Open MPI's mpiexec (or the other way round) each run alone as rank 0.
set(MBX_MPIEXEC_FLAVOUR other)
if(MPIEXEC_EXECUTABLE)
  execute_process(COMMAND ${MPIEXEC_EXECUTABLE} --version OUTPUT_VARIABLE _mbx_ver
                  ERROR_VARIABLE _mbx_ver TIMEOUT 30 RESULT_VARIABLE _mbx_rc)
  if(_mbx_ver MATCHES "Open MPI|OpenRTE")
    set(MBX_MPIEXEC_FLAVOUR openmpi)
  elseif(_mbx_ver MATCHES "HYDRA")
    set(MBX_MPIEXEC_FLAVOUR mpich)
  endif()
endif()
if(NOT MBX_MPI_FLAVOUR STREQUAL "other" AND NOT MBX_MPIEXEC_FLAVOUR STREQUAL "other"
   AND NOT MBX_MPI_FLAVOUR STREQUAL MBX_MPIEXEC_FLAVOUR)
  message(FATAL_ERROR "MPIEXEC_EXECUTABLE ${MPIEXEC_EXECUTABLE} is ${MBX_MPIEXEC_FLAVOUR}'s "
          "launcher, but the library is ${MBX_MPI_FLAVOUR}: give the matching "
          "-DMPIEXEC_EXECUTABLE (or -DMBX_MPI=mpich|openmpi in a new build directory)")
endif()
# `mpibex -n N` and `mpibex repeat` start this launcher unless told otherwise.
set(MBX_MPIEXEC_DEFAULT mpiexec)
if(MPIEXEC_EXECUTABLE)
  set(MBX_MPIEXEC_DEFAULT ${MPIEXEC_EXECUTABLE})
endif()
message(STATUS "MPI: ${MBX_MPI_FLAVOUR} (${MPI_C_COMPILER}), launcher ${MBX_MPIEXEC_DEFAULT}")
