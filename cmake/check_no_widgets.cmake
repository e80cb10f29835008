# SPDX-License-Identifier: GPL-3.0-or-later
# Fails when a file of the widget-free document layer (ui/document) includes Qt Widgets or a
# header of the layers above it (ui/run, ui/views, ui/panels, the main window).
#   cmake -DDIR=<folder> -DWIDGETS_DIR=<Qt's QtWidgets include folder> [-DSTAMP=<file>] -P check_no_widgets.cmake
file(GLOB _files ${DIR}/*.h ${DIR}/*.cpp)
set(_errors "")
foreach(_file IN LISTS _files)
  file(STRINGS ${_file} _lines REGEX "^[ \t]*#[ \t]*include")
  set(_line_no 0)
  foreach(_line IN LISTS _lines)
    if(NOT _line MATCHES "#[ \t]*include[ \t]*[<\"]([^>\"]+)[>\"]")
      continue()
    endif()
    set(_header ${CMAKE_MATCH_1})
    get_filename_component(_name ${_header} NAME)
    if(_header MATCHES "^QtWidgets/" OR _header MATCHES "^ui/(run|views|panels|main_window)" OR
       _header STREQUAL "qcustomplot.h" OR (WIDGETS_DIR AND EXISTS ${WIDGETS_DIR}/${_name} AND NOT _header MATCHES "/"))
      string(APPEND _errors "${_file}: includes ${_header}: ui/document has no widgets (it is the layer below them)\n")
    endif()
  endforeach()
endforeach()
if(_errors)
  message(FATAL_ERROR "${_errors}")
endif()
if(STAMP)
  file(TOUCH ${STAMP})
endif()
